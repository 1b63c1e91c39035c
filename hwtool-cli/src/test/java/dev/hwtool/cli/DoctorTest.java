package dev.hwtool.cli;

import dev.hwtool.testing.Preconditions;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.DriverState;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.linux.sys.LinuxProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code hwtool doctor} end to end: on this machine as it is, and on other hosts' fixture trees. */
class DoctorTest {

    static final List<String> CHECK_NAMES = List.of("kernel", "cpu_msr", "msr_driver", "msr_devices", "cpuid_devices",
            "cpuid_paths",
            "cap_sys_rawio", "user_namespace", "lockdown", "msr_allow_writes", "msr_read", "perf_event_paranoid",
            "core_pmu", "lbr", "intel_bts", "intel_pt", "msr_pmu", "rdpmc", "container");

    // ---- this machine ---------------------------------------------------------------------------

    /**
     * The build machine: a Firecracker VM (a KVM guest) whose root file system was made from a
     * docker image, so /.dockerenv exists but nothing else says container; root, on a kernel built
     * without CONFIG_X86_MSR and without a virtual PMU. Doctor must name exactly those, with
     * their fixes, and not take the VM for a container.
     */
    @Test
    void thisMachineNamesTheMissingDriverThePmuAndTheContainer() {
        LinuxFacts f = LinuxProbe.probe();
        Preconditions.hostLacks(Preconditions.Kernel.MSR_DRIVER);
        Preconditions.hostLacks(Preconditions.Hardware.CORE_PMU);
        dev.hwtool.testing.Preconditions.privileged(f.credentials().root(), "doctor's view of this machine is checked as root");
        assertEquals(DriverState.NOT_BUILT, f.msrDriver().state(), "the probe agrees: " + f.msrDriver());
        assertTrue(f.corePmus().isEmpty(), "the probe agrees: " + f.corePmus());
        boolean container = f.container().detected();
        Run r = Run.of("doctor");
        assertEquals(Cause.DRIVER_NOT_LOADED.exitCode(), r.exit(), r.toString());
        String out = unwrapped(r.out());
        assertTrue(out.contains(" fail  msr driver           the kernel was built without CONFIG_X86_MSR"), out);
        assertTrue(out.contains("fix: " + (container ? "on the host: " : "") + Verdicts.REBUILD_WITH_MSR + "\n"), out);
        assertTrue(out.contains(" fail  /dev/cpu/N/msr       "), out);
        assertTrue(out.contains(" ok    CAP_SYS_RAWIO        euid 0"), out);
        assertTrue(out.contains(" ok    user namespace"), out);
        assertTrue(out.contains(" fail  live MSR read        reading IA32_TIME_STAMP_COUNTER (0x10) on CPU 0 failed"
                + " (driver not loaded)"), out);
        assertTrue(out.contains(" fail  core PMU             no cpu, cpu_core or cpu_atom PMU"), out);
        assertTrue(out.contains("gives this guest no virtual PMU"), out);
        assertFalse(out.contains("fix: sudo modprobe msr\n") || out.contains("fix: on the host: sudo modprobe msr"),
                "there is no msr module to load on this kernel\n" + out);
        if (Files.exists(Path.of("/.dockerenv")) && !container) {
            assertTrue(out.contains(" ok    container            none detected (/.dockerenv exists, but nothing a"
                    + " container runtime sets up at start corroborates it"), out);
        }
        assertTrue(out.contains("Facilities (as hwtool caps judges them)"), out);
        assertTrue(out.strip().endsWith("exit 5 (driver not loaded, from msr driver)"), out);
        assertEquals("", r.err());
    }

    @Test
    void jsonHasTheDocumentedShapeAndItsExitCodeIsTheProcesses() throws IOException {
        Run r = Run.of("doctor", "--json");
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        assertEquals(List.of("hwtool_version", "describes", "checks", "verdicts", "summary"), List.copyOf(m.keySet()));
        assertEquals("this machine", m.get("describes"));
        List<?> checks = (List<?>) m.get("checks");
        assertEquals(CHECK_NAMES, checks.stream().map(c -> ((Map<?, ?>) c).get("name")).toList());
        for (Object o : checks) {
            Map<?, ?> c = (Map<?, ?>) o;
            assertEquals(List.of("name", "status", "detail", "fix", "cause"), List.copyOf(c.keySet()));
            assertTrue(List.of("ok", "warn", "fail").contains(c.get("status")), c.toString());
            assertFalse(((String) c.get("detail")).isBlank(), c.toString());
            if (c.get("status").equals("fail")) {
                assertTrue(c.get("cause") != null, "a failure names its cause: " + c);
            }
        }
        Map<?, ?> summary = (Map<?, ?>) m.get("summary");
        assertEquals(r.exit(), summary.get("exit_code"));
        long fails = checks.stream().filter(c -> ((Map<?, ?>) c).get("status").equals("fail")).count();
        assertEquals((int) fails, summary.get("fail"));
        assertEquals(fails == 0, r.exit() == 0, r.toString());
        assertEquals(dev.hwtool.api.Facility.values().length, ((List<?>) m.get("verdicts")).size());
    }

    @Test
    void theSimulatorIsRefused() {
        Run r = Run.of("doctor", "--backend", "sim", "--profile", "skylake");
        assertEquals(2, r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: doctor checks this machine's hardware access"), r.err());
        assertEquals(1, r.err().lines().count(), r.err());
        assertEquals("", r.out());
    }

    // ---- other hosts, from fixture trees ---------------------------------------------------------

    @Test
    void healthyIntelHostPassesWithTheAllowWritesWarning(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir);
        Run r = t.asProbeRoot(() -> Run.of("doctor", "--json"));
        assertEquals(0, r.exit(), r.toString());
        Map<String, Map<?, ?>> c = byName(r);
        assertEquals("ok", c.get("msr_driver").get("status"));
        assertTrue(((String) c.get("msr_driver").get("detail")).startsWith("loaded as a module"), c.toString());
        assertEquals("ok", c.get("msr_devices").get("status"));
        assertEquals("ok", c.get("lockdown").get("status"));
        Map<?, ?> aw = c.get("msr_allow_writes");
        assertEquals("warn", aw.get("status"));
        assertTrue(((String) aw.get("detail")).contains("TAINT_CPU_OUT_OF_SPEC"), aw.toString());
        assertTrue(((String) aw.get("detail")).contains("Write to unrecognized MSR"), aw.toString());
        assertTrue(((String) aw.get("fix")).startsWith("echo on | sudo tee /sys/module/msr/parameters/allow_writes"));
        assertEquals("warn", c.get("msr_read").get("status"), "never touches this machine for another host's facts");
        assertTrue(((String) c.get("msr_read").get("detail")).startsWith("not run: the facts come from " + dir));
        assertEquals("ok", c.get("core_pmu").get("status"));
        assertEquals("cpu caps/branches=32", c.get("lbr").get("detail"));
        assertEquals("ok", c.get("intel_bts").get("status"));
        assertEquals("ok", c.get("rdpmc").get("status"));
        assertEquals("ok", c.get("container").get("status"));
        assertEquals("none detected", c.get("container").get("detail"));
    }

    @Test
    void userWithoutRawioFailsWithMissingCapability(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir).status(1000, HostTree.NO_CAPS);
        Run r = t.asProbeRoot(() -> Run.of("doctor", "--json"));
        assertEquals(Cause.MISSING_CAPABILITY.exitCode(), r.exit(), r.toString());
        Map<?, ?> cap = byName(r).get("cap_sys_rawio");
        assertEquals("fail", cap.get("status"));
        assertEquals("missing_capability", cap.get("cause"));
        assertEquals(Verdicts.RUN_AS_ROOT_RAWIO, cap.get("fix"));
        assertTrue(((String) cap.get("detail")).contains("euid 1000, CapEff 0x0 lacks CAP_SYS_RAWIO"), cap.toString());
    }

    @Test
    void rootlessContainerUserNamespaceFails(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir).file("/proc/self/uid_map", "         0       1000          1\n");
        Run r = t.asProbeRoot(() -> Run.of("doctor", "--json"));
        assertEquals(Cause.MISSING_CAPABILITY.exitCode(), r.exit(), r.toString());
        Map<?, ?> ns = byName(r).get("user_namespace");
        assertEquals("fail", ns.get("status"));
        assertEquals(Verdicts.INITIAL_USER_NAMESPACE, ns.get("fix"));
    }

    @Test
    void lockdownAndAllowWritesOffWarnWithoutFailing(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir)
                .file("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n")
                .file("/sys/module/msr/parameters/allow_writes", "off\n");
        Run r = t.asProbeRoot(() -> Run.of("doctor"));
        assertEquals(0, r.exit(), r.toString());
        String out = unwrapped(r.out());
        assertTrue(out.contains(" warn  lockdown             [integrity]: msr_write refuses every write with EPERM"), out);
        assertTrue(out.contains(" warn  msr.allow_writes     off: every write fails with EPERM"), out);
        assertTrue(out.contains("fix: " + Verdicts.ALLOW_WRITES_ON + "\n"), out);
    }

    @Test
    void dockerWithoutDevCpuOnAHostWithoutTheModuleLoaded(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir).delete("/dev/cpu").delete("/sys/module/msr").docker()
                .kernelConfig("CONFIG_MODULES=y\nCONFIG_X86_MSR=m\nCONFIG_X86_CPUID=m\n");
        Run r = t.asProbeRoot(() -> Run.of("doctor", "--json"));
        assertEquals(Cause.DRIVER_NOT_LOADED.exitCode(), r.exit(), r.toString());
        Map<String, Map<?, ?>> c = byName(r);
        assertEquals("on the host: " + Verdicts.MODPROBE_MSR, c.get("msr_driver").get("fix"));
        assertTrue(((String) c.get("msr_driver").get("detail")).contains("a container cannot load it"));
        assertEquals("fail", c.get("msr_devices").get("status"));
        assertEquals("driver_not_loaded", c.get("msr_devices").get("cause"), "as rdmsr would exit");
        assertEquals(Verdicts.HOST_MODPROBE_AND_DEVICES, c.get("msr_devices").get("fix"));
        assertEquals("warn", c.get("container").get("status"));
        assertEquals("load the msr driver on the host (see msr driver); then start the container with --device=/dev/cpu",
                c.get("container").get("fix"));
        assertEquals("warn", c.get("msr_allow_writes").get("status"), "unknown until the driver is loaded");
    }

    /**
     * The host's kernel has no msr driver at all: every msr remedy in a container must ask for
     * another kernel, never "modprobe msr", and the caps remedy names each container flag once.
     */
    @Test
    void dockerWithoutDevCpuOnAHostWithoutTheDriverAsksForAnotherKernel(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir).delete("/dev/cpu").delete("/sys/module/msr").docker()
                .status(0, "00000000a80425fb") // docker's default set: no CAP_SYS_RAWIO
                .kernelConfig("CONFIG_MODULES=y\n# CONFIG_X86_MSR is not set\nCONFIG_X86_CPUID=y\n");
        Run r = t.asProbeRoot(() -> Run.of("doctor", "--json"));
        Map<String, Map<?, ?>> c = byName(r);
        String rebuild = "on the host: boot a kernel built with CONFIG_X86_MSR=y or =m, then sudo modprobe msr;"
                + " then start the container with --device=/dev/cpu --cap-add=SYS_RAWIO";
        assertEquals("on the host: " + Verdicts.REBUILD_WITH_MSR, c.get("msr_driver").get("fix"));
        assertEquals(rebuild, c.get("msr_devices").get("fix"));
        assertEquals("driver_not_loaded", c.get("msr_devices").get("cause"));
        for (Map<?, ?> check : c.values()) {
            assertFalse(String.valueOf(check.get("fix")).contains(Verdicts.HOST_MODPROBE_AND_DEVICES), check::toString);
        }
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        int msrVerdicts = 0;
        for (Object o : (List<?>) m.get("verdicts")) {
            Map<?, ?> v = (Map<?, ?>) o;
            if (String.valueOf(v.get("facility")).startsWith("msr")) {
                assertEquals(rebuild, v.get("remedy"), "one clause, each flag once: " + v);
                msrVerdicts++;
            }
        }
        assertEquals(2, msrVerdicts, "msr_read and msr_write judged");
    }

    /** docker run --device /dev/cpu/0/cpuid as root: CPU 1's node is absent, not unreadable. */
    @Test
    void someCpuidNodesNotPassedInAreNamedWithTheDeviceFix(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir).delete("/dev/cpu/1").delete("/dev/cpu/0/msr").docker();
        Map<String, Map<?, ?>> c = byName(t.asProbeRoot(() -> Run.of("doctor", "--json")));
        Map<?, ?> cpuid = c.get("cpuid_devices");
        assertEquals("warn", cpuid.get("status"));
        assertEquals("unsupported", cpuid.get("cause"));
        assertTrue(((String) cpuid.get("detail")).startsWith("present on 1 of 2 online CPUs, absent on CPU 1: not passed"
                + " into this docker container; the cpuid driver is present (/sys/module/cpuid/initstate: live)"),
                cpuid.toString());
        assertEquals("start the container with --device=/dev/cpu", cpuid.get("fix"));
        assertEquals("unsupported", c.get("msr_devices").get("cause"), "the msr driver is loaded on the host");
    }

    /**
     * On a host, as root, nodes are never a permission problem: none at all is the driver's fix;
     * some missing while others exist (so the driver is loaded) is a /dev without them.
     */
    @Test
    void cpuidNodesMissingOnAHostGiveTheDriverOrDevFix(@TempDir Path dir) throws IOException {
        HostTree none = HostTree.intelHost(dir.resolve("none")).delete("/dev/cpu/0/cpuid").delete("/dev/cpu/1/cpuid")
                .delete("/sys/module/cpuid").kernelConfig("CONFIG_MODULES=y\nCONFIG_X86_MSR=m\nCONFIG_X86_CPUID=m\n");
        Map<?, ?> cpuid = byName(none.asProbeRoot(() -> Run.of("doctor", "--json"))).get("cpuid_devices");
        assertEquals("warn", cpuid.get("status"));
        assertEquals("driver_not_loaded", cpuid.get("cause"));
        assertTrue(((String) cpuid.get("detail")).startsWith("absent on all 2 online CPUs: the cpuid driver is not loaded"
                + " (CONFIG_X86_CPUID=m in /proc/config.gz, no /sys/module/cpuid)"), cpuid.toString());
        assertEquals("sudo modprobe cpuid", cpuid.get("fix"));

        HostTree some = HostTree.intelHost(dir.resolve("some")).delete("/dev/cpu/1/cpuid");
        Map<?, ?> partial = byName(some.asProbeRoot(() -> Run.of("doctor", "--json"))).get("cpuid_devices");
        assertEquals("unsupported", partial.get("cause"));
        assertTrue(((String) partial.get("detail")).startsWith("present on 1 of 2 online CPUs, absent on CPU 1: the cpuid"
                + " driver is present (/sys/module/cpuid/initstate: live) but its node is not in this /dev"),
                partial.toString());
        assertEquals("sudo mount -t devtmpfs devtmpfs /dev (creates /dev/cpu/N/cpuid)", partial.get("fix"));
    }

    @Test
    void noPerfEventsAtAllFails(@TempDir Path dir) throws IOException {
        HostTree t = HostTree.intelHost(dir).delete("/proc/sys/kernel/perf_event_paranoid")
                .delete("/sys/bus/event_source/devices");
        Run r = t.asProbeRoot(() -> Run.of("doctor", "--json"));
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        Map<String, Map<?, ?>> c = byName(r);
        assertEquals("fail", c.get("perf_event_paranoid").get("status"));
        assertEquals("perf_event_paranoid", JSON.std.mapFrom(r.out()).get("summary") instanceof Map<?, ?> s
                ? s.get("first_failure") : null);
        assertEquals("warn", c.get("lbr").get("status"), "a consequence points at its cause instead of failing again");
        assertEquals("not checked: no core PMU (see core PMU)", c.get("lbr").get("detail"));
    }

    /** The text report with each wrapped detail or fix joined back into one line. */
    static String unwrapped(String text) {
        return text.replaceAll("\n {28}(?!fix:) *", " ");
    }

    private static Map<String, Map<?, ?>> byName(Run r) throws IOException {
        Map<String, Object> m = JSON.std.mapFrom(r.out());
        Map<String, Map<?, ?>> out = new java.util.LinkedHashMap<>();
        for (Object o : (List<?>) m.get("checks")) {
            Map<?, ?> c = (Map<?, ?>) o;
            out.put((String) c.get("name"), c);
        }
        return out;
    }
}
