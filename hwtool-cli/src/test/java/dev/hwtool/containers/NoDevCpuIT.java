package dev.hwtool.containers;

import dev.hwtool.api.Cause;
import dev.hwtool.caps.Capability;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.DriverState;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.cli.Main;
import dev.hwtool.linux.sys.LinuxProbe;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A plain docker container: no /dev/cpu at all (docker's /dev is a tmpfs of standard nodes)
 * and docker's default capabilities, which do not include CAP_SYS_RAWIO.
 */
@ExtendWith(DockerDaemon.class)
@Testcontainers
class NoDevCpuIT {

    @Container
    static final HwtoolContainer CONTAINER = new HwtoolContainer();

    @Test
    void theContainerRunsThisBuildsJarOnThisJdkAndHasNoDevCpu() {
        ContainerRun version = CONTAINER.hwtool("--version").assertOk();
        assertEquals(inProcess("--version").out(), version.out(), "same jar, same JDK as this test");
        ContainerRun ls = CONTAINER.exec("/bin/busybox", "ls", "/dev/cpu");
        assertNotEquals(0, ls.exit(), ls::toString);
        assertTrue(ls.err().contains("No such file or directory"), ls::toString);
    }

    @Test
    void capsSaysTheCpuNodesWereNotPassedIn() {
        CapsJsonView caps = new CapsJsonView(CONTAINER.hwtool("caps", "--json").assertOk().json());

        Map<String, Object> container = caps.container();
        assertEquals(true, container.get("detected"), container::toString);
        assertEquals("docker", container.get("kind"), container::toString);
        assertTrue(((List<?>) container.get("evidence")).contains("/.dockerenv exists"), container::toString);
        // what corroborates /.dockerenv (a VM or chroot made from the image has the file too)
        assertTrue(((List<?>) container.get("evidence")).stream()
                        .anyMatch(e -> String.valueOf(e).matches("/etc/\\S+ from containers/\\p{XDigit}{12} in /proc/self/mountinfo")),
                container::toString);

        assertFalse(caps.devCpuPresent());
        assertFalse(caps.onlineCpus().isEmpty(), "sysfs still lists the host's CPUs");
        for (Map<String, Object> cpu : caps.cpus()) {
            assertEquals(false, cpu.get("directory"), cpu::toString);
            assertEquals(false, ((Map<?, ?>) cpu.get("cpuid")).get("present"), cpu::toString);
            assertEquals(false, ((Map<?, ?>) cpu.get("msr")).get("present"), cpu::toString);
        }

        assertTrue(caps.usable("cpuid"), caps.reason("cpuid"));
        assertTrue(caps.reason("cpuid").contains("/dev/cpu/N/cpuid absent"), caps.reason("cpuid"));
        assertTrue(caps.reason("cpuid").contains("the instruction does not need it"), caps.reason("cpuid"));

        assertFalse(caps.has(Capability.CAP_SYS_RAWIO), "docker's default capability set has no CAP_SYS_RAWIO");
        for (String msr : List.of("msr_read", "msr_write")) {
            assertFalse(caps.usable(msr), caps.reason(msr));
            assertTrue(caps.reason(msr).contains("no /dev/cpu in this docker container: the host's CPU device nodes were not passed in"),
                    caps.reason(msr));
            assertTrue(caps.reason(msr).contains("lacks CAP_SYS_RAWIO"), caps.reason(msr));
            assertTrue(caps.remedy(msr).contains("--device=/dev/cpu"), caps.remedy(msr));
            assertEquals(1, caps.remedy(msr).split("--cap-add=SYS_RAWIO", -1).length - 1,
                    "two blockers ask for the capability, the remedy names it once: " + caps.remedy(msr));
            // the container shares the host's kernel: the remedy follows its msr driver
            assertEquals(HOST.msrDriver().state() == DriverState.NOT_BUILT,
                    caps.remedy(msr).startsWith("on the host: " + Verdicts.REBUILD_WITH_MSR), caps.remedy(msr));
        }
    }

    /** This machine's kernel, which the container shares. */
    static final LinuxFacts HOST = LinuxProbe.probe();

    /** What a missing /dev/cpu/N/cpuid costs when the driver is loaded on the host or not. */
    static Cause cpuidNodesMissing() {
        return HOST.cpuidDriver().state().present() ? Cause.UNSUPPORTED : Cause.DRIVER_NOT_LOADED;
    }

    @Test
    void capsTextNamesTheContainer() {
        ContainerRun caps = CONTAINER.hwtool("caps").assertOk();
        assertTrue(caps.out().lines().anyMatch(l -> l.matches("\\s+container\\s+docker \\(/\\.dockerenv exists.*")), caps::toString);
        assertTrue(caps.out().lines().anyMatch(l -> l.matches("\\s+credentials\\s+.*CAP_SYS_RAWIO no.*")), caps::toString);
    }

    @Test
    void cpuidByTheInstructionNeedsNoDevice() {
        ContainerRun cpuid = CONTAINER.hwtool("cpuid", "-1").assertOk();
        assertTrue(cpuid.out().startsWith("CPU:\n   0x00000000 0x00: eax="), cpuid::toString);
        assertEquals(inProcess("cpuid", "-1").out(), cpuid.out(), "the same CPU 0 as seen from the host");
    }

    @Test
    void cpuidThroughTheDeviceFailsWithOneLineNamingTheMissingNode() {
        ContainerRun device = CONTAINER.hwtool("cpuid", "--source", "device", "-1");
        // CPU 0 is online (sysfs) but /dev/cpu/0 is absent: the node, not the CPU, is missing, so
        // not NO_SUCH_CPU (4); and with the cpuid driver loaded on the host (built in here) not
        // DRIVER_NOT_LOADED (5) either: UNSUPPORTED (11), the nodes were not passed in.
        String error = device.assertFailedWith(cpuidNodesMissing());
        assertTrue(error.startsWith("hwtool: open /dev/cpu/0/cpuid: "), error);
        assertTrue(error.contains("CPU 0 is online but there is no /dev/cpu in this docker container: the host's CPU"
                + " device nodes were not passed in"), error);
        if (HOST.cpuidDriver().state().present()) {
            assertTrue(error.endsWith("; the cpuid driver is present (" + HOST.cpuidDriver().evidence() + ")"), error);
            assertEquals("hwtool: fix: start the container with --device=/dev/cpu", device.err().lines().toList().get(1));
        }
    }

    @Test
    void doctorNamesTheMissingNodesAndCapabilityAndExitsWithTheFirstFailure() {
        DoctorJsonView doctor = DoctorJsonView.of(CONTAINER.hwtool("doctor", "--json"));

        String notPassedIn = "there is no /dev/cpu in this docker container: the host's CPU device nodes were not passed in";
        assertEquals("fail", doctor.status("msr_devices"));
        assertTrue(doctor.detail("msr_devices").startsWith(notPassedIn), doctor.detail("msr_devices"));
        assertTrue(doctor.fix("msr_devices").endsWith("start the container with --device=/dev/cpu --cap-add=SYS_RAWIO"),
                doctor.fix("msr_devices"));

        assertEquals("warn", doctor.status("cpuid_devices"), "the instruction does not need the node");
        assertTrue(doctor.detail("cpuid_devices").startsWith(notPassedIn), doctor.detail("cpuid_devices"));
        assertEquals(cpuidNodesMissing().name().toLowerCase(java.util.Locale.ROOT), doctor.cause("cpuid_devices"));
        assertTrue(doctor.fix("cpuid_devices").endsWith("start the container with --device=/dev/cpu"), doctor.fix("cpuid_devices"));

        // the live read's remedy (from the msr errors) agrees with msr_devices: no modprobe without a module
        assertEquals(doctor.fix("msr_devices"), doctor.fix("msr_read"));
        assertEquals(doctor.cause("msr_devices"), doctor.cause("msr_read"));

        assertEquals("fail", doctor.status("cap_sys_rawio"));
        assertEquals("missing_capability", doctor.cause("cap_sys_rawio"));
        assertEquals(Verdicts.ADD_RAWIO_TO_CONTAINER, doctor.fix("cap_sys_rawio"));

        assertEquals("fail", doctor.status("msr_read"), "the live read cannot succeed without /dev/cpu/0/msr");
        assertTrue(doctor.detail("msr_read").contains("/dev/cpu/0/msr"), doctor.detail("msr_read"));

        assertEquals("warn", doctor.status("container"));
        assertTrue(doctor.detail("container").startsWith("docker (/.dockerenv exists"), doctor.detail("container"));
        assertTrue(doctor.fix("container").endsWith("start the container with --device=/dev/cpu --cap-add=SYS_RAWIO"),
                doctor.fix("container"));
    }

    @Test
    void doctorTextEndsWithTheSameSummaryAndExitCode() {
        ContainerRun json = CONTAINER.hwtool("doctor", "--json");
        ContainerRun text = CONTAINER.hwtool("doctor");
        assertEquals(json.exit(), text.exit(), text::toString);
        assertEquals("", text.err(), text::toString);
        String last = text.out().strip().lines().reduce((a, b) -> b).orElse("");
        assertTrue(last.matches("\\d+ checks: \\d+ ok, \\d+ warnings?, \\d+ failed; exit " + json.exit() + ".*"), last);
    }

    /** The same command run in this JVM, on the host, for comparison. */
    static ContainerRun inProcess(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int code = Main.run("hwtool", args, new PrintWriter(out), new PrintWriter(err));
        return new ContainerRun(code, out.toString(), err.toString()).assertOk();
    }
}
