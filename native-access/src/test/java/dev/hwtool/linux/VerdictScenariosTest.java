package dev.hwtool.linux;

import dev.hwtool.linux.sys.FixtureTree;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Cause;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.api.Facility;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.CpuDevices;
import dev.hwtool.caps.LinuxFacts.DeviceNode;
import dev.hwtool.api.Verdict;
import dev.hwtool.caps.Verdicts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Whole scenarios: a fixture tree read by {@link LinuxProbe}, judged by {@link Verdicts}, with
 * the exact usability, a key phrase of the reason and the exact remedy asserted.
 */
class VerdictScenariosTest {

    private static final String VM_HOST_PMU = "only the VM host can give this guest a virtual PMU"
            + " (QEMU/KVM: -cpu host,pmu=on); nothing can be done inside the guest";
    private static final String RUN_AS_ROOT = "run as root (sudo), or sudo setcap cap_sys_rawio=ep on the java"
            + " launcher (which then needs its lib directory in /etc/ld.so.conf.d: secure-execution ignores $ORIGIN)";

    @TempDir
    Path dir;

    private static Verdict verdict(CpuCapabilities cpu, Path root, Facility f) {
        List<Verdict> all = Verdicts.assess(cpu, LinuxProbe.probe(root));
        assertEquals(Arrays.asList(Facility.values()), all.stream().map(Verdict::facility).toList());
        return all.get(f.ordinal());
    }

    private static void expect(Verdict v, boolean usable, String phrase, String remedy) {
        assertEquals(usable, v.usable(), () -> v.toString());
        assertTrue(v.message().contains(phrase), () -> "reason lacks \"" + phrase + "\": " + v.message());
        assertEquals(remedy, v.remedy().orElse(""), () -> v.toString());
    }

    @Test
    void eachBlockedVerdictNamesTheCauseOfItsFirstBlocker() {
        CpuCapabilities amd = CpuFixtures.amdEpycGuest();
        Path bare = FixtureTree.bareVm(dir.resolve("bare")).root;
        assertEquals(Optional.empty(), verdict(amd, bare, Facility.CPUID).cause());
        assertEquals(Optional.of(Cause.DRIVER_NOT_LOADED), verdict(amd, bare, Facility.MSR_READ).cause());
        assertEquals(Optional.of(Cause.UNSUPPORTED), verdict(amd, bare, Facility.LBR_PERF).cause());
        Path user = FixtureTree.bareVm(dir.resolve("user")).withMsr("default").status(1000, "0000000000000000").root;
        assertEquals(Optional.of(Cause.MISSING_CAPABILITY), verdict(amd, user, Facility.MSR_READ).cause());
        Path locked = FixtureTree.bareVm(dir.resolve("locked")).withMsr("off")
                .file("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n").root;
        assertEquals(Optional.of(Cause.LOCKDOWN), verdict(CpuFixtures.skylakeHost(), locked, Facility.MSR_WRITE).cause(),
                "lockdown is checked first by msr_write, so it is the first blocker");
        Path filtered = FixtureTree.bareVm(dir.resolve("filtered")).withMsr("off")
                .file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n").root;
        assertEquals(Optional.of(Cause.WRITES_DISABLED),
                verdict(CpuFixtures.skylakeHost(), filtered, Facility.MSR_WRITE).cause());
    }

    @Test
    void bareVmWithoutMsrModule() {
        Path root = FixtureTree.bareVm(dir).root;
        CpuCapabilities cpu = CpuFixtures.amdEpycGuest();
        expect(verdict(cpu, root, Facility.CPUID), true, "/dev/cpu/N/cpuid readable on 2 of 2 online CPUs", "");
        expect(verdict(cpu, root, Facility.MSR_READ), false,
                "the msr driver is not loaded (msr.ko installed, no /sys/module/msr)", "sudo modprobe msr");
        expect(verdict(cpu, root, Facility.MSR_WRITE), false, "the msr driver is not loaded", "sudo modprobe msr");
        expect(verdict(cpu, root, Facility.LBR_PERF), false,
                "no cpu PMU under /sys/bus/event_source/devices (present: breakpoint, msr, software, tracepoint,"
                        + " uprobe)", VM_HOST_PMU);
        expect(verdict(cpu, root, Facility.BTS_PERF), false, "BTS is an Intel facility; this CPU is AuthenticAMD", "");
        expect(verdict(cpu, root, Facility.HW_COUNTERS), false, "hypervisor KVM gives this guest no virtual PMU",
                VM_HOST_PMU);
        expect(verdict(cpu, root, Facility.RDPMC), false, "no cpu PMU", VM_HOST_PMU);
        expect(verdict(cpu, root, Facility.PEBS_PERF), false, "PEBS is an Intel facility; this CPU is AuthenticAMD", "");
    }

    @Test
    void pebsOnAnIntelHostUpToMaxPrecise() {
        Path root = FixtureTree.bareVm(dir).intelPmus().status(1000, "0000000000000000").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.PEBS_PERF), true,
                "precise sampling through PEBS: cpu up to :ppp (caps/max_precise=3); user-space samples of this"
                        + " process at perf_event_paranoid=2", "");
    }

    @Test
    void pebsNotActiveWhenMaxPreciseIsZero() {
        Path root = FixtureTree.bareVm(dir).intelPmus()
                .file("/sys/bus/event_source/devices/cpu/caps/max_precise", "0\n").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.PEBS_PERF), false,
                "the cpu PMU's caps/max_precise is 0: the kernel did not enable PEBS (IA32_MISC_ENABLE[12]", "");
    }

    @Test
    void pebsInAGuestWithoutDsNamesTheHypervisor() {
        Path root = FixtureTree.bareVm(dir).pmu("cpu", 4)
                .file("/sys/bus/event_source/devices/cpu/caps/max_precise", "0\n").root;
        expect(verdict(CpuFixtures.skylakeGuestWithoutDs(), root, Facility.PEBS_PERF), false,
                "CPUID.01H:EDX[21] (DS) is clear: PEBS writes its records through the debug store, so no PEBS"
                        + " (hypervisor KVM does not expose it to this guest)", VM_HOST_PMU);
    }

    @Test
    void kernelBuiltWithoutMsrDriverCannotModprobe() {
        Path root = FixtureTree.bareVm(dir).delete("/lib/modules")
                .kernelConfig("# CONFIG_X86_MSR is not set\nCONFIG_X86_CPUID=y\n# CONFIG_MODULES is not set\n").root;
        expect(verdict(CpuFixtures.amdEpycGuest(), root, Facility.MSR_READ), false,
                "CONFIG_X86_MSR is not set in /proc/config.gz, and CONFIG_MODULES is not set",
                "boot a kernel built with CONFIG_X86_MSR=y or =m, then sudo modprobe msr");
    }

    @Test
    void msrLoadedButNonRootWithoutRawio() {
        Path root = FixtureTree.bareVm(dir).withMsr("default").status(1000, "0000000000000000").root;
        CpuCapabilities cpu = CpuFixtures.amdEpycGuest();
        expect(verdict(cpu, root, Facility.MSR_READ), false, "lacks CAP_SYS_RAWIO: msr_open returns EPERM",
                RUN_AS_ROOT);
        expect(verdict(cpu, root, Facility.MSR_WRITE), false, "lacks CAP_SYS_RAWIO", RUN_AS_ROOT);
    }

    @Test
    void rawioOnlyInsideAUserNamespace() {
        Path root = FixtureTree.bareVm(dir).withMsr("on")
                .file("/proc/self/uid_map", "         0       1000          1\n").root;
        expect(verdict(CpuFixtures.amdEpycGuest(), root, Facility.MSR_READ), false,
                "CAP_SYS_RAWIO is held only inside a user namespace",
                "run outside a user namespace (on the host or in a rootful container): msr_open checks capable() there");
    }

    @Test
    void lockdownIntegrityBlocksWritesNotReads() {
        Path root = FixtureTree.bareVm(dir).withMsr("default")
                .file("/sys/kernel/security/lockdown", "none [integrity] confidentiality\n").root;
        CpuCapabilities cpu = CpuFixtures.skylakeHost();
        expect(verdict(cpu, root, Facility.MSR_READ), true, "/dev/cpu/N/msr readable on 2 of 2 online CPUs", "");
        expect(verdict(cpu, root, Facility.MSR_WRITE), false, "kernel lockdown is [integrity]: msr_write refuses",
                "boot without lockdown: disable Secure Boot (distribution kernels lock down under it) and remove"
                        + " any lockdown= kernel parameter; it cannot be lowered at runtime");
    }

    @Test
    void lockdownForcedByKernelConfigWhenSecurityfsIsNotMounted() {
        Path root = FixtureTree.bareVm(dir).withMsr("on")
                .kernelConfig("CONFIG_X86_MSR=m\nCONFIG_SECURITY_LOCKDOWN_LSM=y\n"
                        + "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y\n").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.MSR_WRITE), false,
                "/sys/kernel/security/lockdown is unavailable but CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y",
                "boot a kernel built without CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY");
    }

    @Test
    void allowWritesOff() {
        Path root = FixtureTree.bareVm(dir).withMsr("off")
                .file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.MSR_WRITE), false,
                "msr.allow_writes=off: every write returns EPERM",
                "echo on | sudo tee /sys/module/msr/parameters/allow_writes"
                        + " (or msr.allow_writes=on on the kernel command line)");
    }

    @Test
    void allowWritesDefaultIsUsableButTaints() {
        Path root = FixtureTree.bareVm(dir).withMsr("default")
                .file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n").root;
        Verdict v = verdict(CpuFixtures.skylakeHost(), root, Facility.MSR_WRITE);
        expect(v, true, "msr.allow_writes=default: each write logs", "");
        assertTrue(v.message().contains("taints the kernel (TAINT_CPU_OUT_OF_SPEC, flag S)"), v.message());
        assertTrue(v.message().contains("lockdown none"), v.message());
    }

    @Test
    void containerWithoutDevCpu() {
        Path root = FixtureTree.bareVm(dir).withMsr("default").delete("/dev/cpu").docker().root;
        LinuxFacts facts = LinuxProbe.probe(root);
        assertEquals("docker", facts.container().kind());
        CpuCapabilities cpu = CpuFixtures.skylakeHost();
        expect(verdict(cpu, root, Facility.MSR_READ), false,
                "no /dev/cpu in this docker container: the host's CPU device nodes were not passed in",
                "start the container with --device=/dev/cpu --cap-add=SYS_RAWIO");
        expect(verdict(cpu, root, Facility.CPUID), true, "/dev/cpu/N/cpuid absent", "");
    }

    @Test
    void containerWithoutDevCpuAndNoMsrOnTheHost() {
        Path root = FixtureTree.bareVm(dir).delete("/dev/cpu").file("/run/.containerenv", "").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.MSR_READ), false, "no /dev/cpu in this podman container",
                "on the host: sudo modprobe msr; then start the container with --device=/dev/cpu --cap-add=SYS_RAWIO");
    }

    @Test
    void intelHostWithCpuPmuAndIntelBts() {
        Path root = FixtureTree.bareVm(dir).withMsr("on").intelPmus()
                .file("/sys/kernel/security/lockdown", "[none] integrity confidentiality\n").root;
        CpuCapabilities cpu = CpuFixtures.skylakeHost();
        expect(verdict(cpu, root, Facility.LBR_PERF), true,
                "cpu caps/branches=32 (LBR depth 32 from the model table (Skylake, 06_5EH)); user and kernel"
                        + " branches allowed (CAP_PERFMON)", "");
        expect(verdict(cpu, root, Facility.BTS_PERF), true, "the intel_bts PMU (type 8) records branches", "");
        expect(verdict(cpu, root, Facility.HW_COUNTERS), true,
                "PMU cpu (type 4); arch perfmon v4: 4 GP counters x 48 bits, 3 fixed", "");
        expect(verdict(cpu, root, Facility.RDPMC), true, "rdpmc is 1: RDPMC works only while", "");
        Verdict write = verdict(cpu, root, Facility.MSR_WRITE);
        expect(write, true, "writes are not logged but still taint the kernel", "");
    }

    @Test
    void intelHostUnprivilegedAtParanoid2() {
        Path root = FixtureTree.bareVm(dir).intelPmus().status(1000, "0000000000000000").root;
        CpuCapabilities cpu = CpuFixtures.skylakeHost();
        expect(verdict(cpu, root, Facility.LBR_PERF), true,
                "user-space branches of this process only at perf_event_paranoid=2", "");
        expect(verdict(cpu, root, Facility.BTS_PERF), true,
                "intel_bts (type 8) refuses unprivileged users at perf_event_paranoid=2", "");
        expect(verdict(cpu, root, Facility.HW_COUNTERS), true, "this process in user space only (exclude_kernel=1)", "");
    }

    /**
     * Seccomp: 2 in /proc/self/status: the facts cannot tell what the filter allows, so the
     * verdict stays the facts' own and says that a filter is there and what container profiles
     * do with perf_event_open; the probe (CapsProbeTest, SeccompIT) decides. Not a container here:
     * systemd services and sandboxes filter too.
     */
    @Test
    void aSeccompFilterIsNamedInThePerfVerdicts() {
        Path root = FixtureTree.bareVm(dir).intelPmus().status(1000, "0000000000000000")
                .file("/proc/self/status", "Name:\tjava\nUid:\t1000\t1000\t1000\t1000\nCapEff:\t0000000000000000\n"
                        + "Seccomp:\t2\nSeccomp_filters:\t2\n").root;
        CpuCapabilities cpu = CpuFixtures.skylakeHost();
        for (Facility f : List.of(Facility.LBR_PERF, Facility.BTS_PERF, Facility.HW_COUNTERS)) {
            Verdict v = verdict(cpu, root, f);
            assertTrue(v.message().contains("seccomp filter mode (2 filters) is active (Seccomp: 2 in /proc/self/status)"),
                    v::toString);
            assertFalse(v.message().contains("in this container"), v::toString);
        }
        Path plain = FixtureTree.bareVm(dir.resolve("plain")).intelPmus().status(1000, "0000000000000000").root;
        assertFalse(verdict(cpu, plain, Facility.LBR_PERF).message().contains("seccomp"));
    }

    @Test
    void kptiWithoutIntelBtsFallsBackToBranchesEvent() {
        Path root = FixtureTree.bareVm(dir).intelPmus().delete("/sys/bus/event_source/devices/intel_bts")
                .file("/sys/devices/system/cpu/vulnerabilities/meltdown", "Mitigation: PTI\n").root;
        assertTrue(LinuxProbe.probe(root).kpti());
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.BTS_PERF), true,
                "intel_bts is not registered because KPTI is on (bts_init returns -ENODEV under X86_FEATURE_PTI;"
                        + " meltdown: Mitigation: PTI), but the `branches` event with sample_period=1", "");
    }

    @Test
    void noIntelBtsWithoutKptiMeansTheKernelFoundBtsUnavailable() {
        Path root = FixtureTree.bareVm(dir).intelPmus().delete("/sys/bus/event_source/devices/intel_bts").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.BTS_PERF), false,
                "intel_bts is not registered although CPUID reports DS and DTES64 and KPTI is off", "");
    }

    @Test
    void guestWithVpmuButNoDsHasNoBts() {
        Path root = FixtureTree.bareVm(dir).intelPmus().delete("/sys/bus/event_source/devices/intel_bts").root;
        expect(verdict(CpuFixtures.skylakeGuestWithoutDs(), root, Facility.BTS_PERF), false,
                "CPUID.01H:EDX[21] (DS) is clear: no debug store, so no BTS (hypervisor KVM does not expose it",
                "");
    }

    @Test
    void paranoid3BlocksUnprivilegedPerf() {
        Path root = FixtureTree.bareVm(dir).intelPmus().status(1000, "0000000000000000")
                .file("/proc/sys/kernel/perf_event_paranoid", "3\n").root;
        CpuCapabilities cpu = CpuFixtures.skylakeHost();
        for (Facility f : List.of(Facility.LBR_PERF, Facility.BTS_PERF, Facility.HW_COUNTERS, Facility.RDPMC)) {
            expect(verdict(cpu, root, f), false,
                    "perf_event_paranoid=3 (a distribution patch) refuses perf_event_open without CAP_PERFMON",
                    "sudo sysctl -w kernel.perf_event_paranoid=2");
        }
    }

    @Test
    void paranoid3DoesNotStopCapPerfmon() {
        Path root = FixtureTree.bareVm(dir).intelPmus().status(1000, "0000004000000000")
                .file("/proc/sys/kernel/perf_event_paranoid", "3\n").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.LBR_PERF), true, "(CAP_PERFMON)", "");
    }

    @Test
    void rdpmcZero() {
        Path root = FixtureTree.bareVm(dir).intelPmus().file("/sys/bus/event_source/devices/cpu/rdpmc", "0\n").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.RDPMC), false,
                "/sys/bus/event_source/devices/cpu/rdpmc is 0: RDPMC faults in user space",
                "echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc");
    }

    @Test
    void rdpmcZeroOnAHybridPartNamesBothCorePmus() {
        FixtureTree t = FixtureTree.bareVm(dir);
        for (String pmu : List.of("cpu_core", "cpu_atom")) {
            t.pmu(pmu, pmu.equals("cpu_core") ? 4 : 10).file("/sys/bus/event_source/devices/" + pmu + "/rdpmc", "0\n");
        }
        expect(verdict(CpuFixtures.skylakeHost(), t.root, Facility.RDPMC), false, "cpu_atom/rdpmc is 0",
                "echo 1 | sudo tee /sys/bus/event_source/devices/cpu_atom/rdpmc"
                        + " /sys/bus/event_source/devices/cpu_core/rdpmc");
    }

    @Test
    void rdpmcTwoIsUsableEvenAtParanoid3() {
        Path root = FixtureTree.bareVm(dir).intelPmus().status(1000, "0000000000000000")
                .file("/proc/sys/kernel/perf_event_paranoid", "3\n")
                .file("/sys/bus/event_source/devices/cpu/rdpmc", "2\n").root;
        expect(verdict(CpuFixtures.skylakeHost(), root, Facility.RDPMC), true, "rdpmc is 2: RDPMC is allowed for every"
                + " process", "");
    }

    @Test
    void cpuPmuWithoutLbrInAGuest() {
        Path root = FixtureTree.bareVm(dir).pmu("cpu", 4).file("/sys/bus/event_source/devices/cpu/rdpmc", "1\n").root;
        expect(verdict(CpuFixtures.skylakeGuestWithoutDs(), root, Facility.LBR_PERF), false,
                "the cpu PMU has no LBR (caps/branches absent) although the CPU has LBR depth 32", VM_HOST_PMU);
    }

    @Test
    void msrNodeNotReadableIsEacces() {
        LinuxFacts f = LinuxProbe.probe(FixtureTree.bareVm(dir).withMsr("on").status(1000, "0000000000020000").root);
        List<CpuDevices> locked = f.cpus().stream().map(c -> new CpuDevices(c.cpu(), c.online(), c.directory(),
                new DeviceNode(c.msr().path(), true, true, 202, c.cpu(), "crw-------", "root", "root", false, false),
                c.cpuid())).toList();
        LinuxFacts denied = new LinuxFacts(f.kernelRelease(), f.machine(), f.onlineCpus(), f.devCpuPresent(), locked,
                f.msrDriver(), f.cpuidDriver(), f.credentials(), f.lockdown(), f.msrAllowWrites(),
                f.perfEventParanoid(), f.perfEventMlockKb(), f.pmus(), f.container(), f.meltdown(), f.kernelConfig());
        Verdict v = Verdicts.assess(CpuFixtures.skylakeHost(), denied).get(Facility.MSR_READ.ordinal());
        expect(v, false, "/dev/cpu/0/msr is crw------- root:root, not readable by uid 1000: open fails with EACCES",
                "run as root (sudo), or grant access: sudo setfacl -m u:1000:r /dev/cpu/*/msr");
        assertFalse(v.message().contains("CAP_SYS_RAWIO"), "CapEff 0x20000 holds CAP_SYS_RAWIO: " + v.message());
    }
}
