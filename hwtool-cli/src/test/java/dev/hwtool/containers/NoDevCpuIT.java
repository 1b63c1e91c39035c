package dev.hwtool.containers;

import dev.hwtool.api.Cause;
import dev.hwtool.caps.Capability;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.cli.Main;
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
        }
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
        // CPU 0 is online (sysfs) but /dev/cpu/0 is absent: the node, not the CPU, is missing,
        // so DRIVER_NOT_LOADED (5) and not NO_SUCH_CPU (4).
        String error = device.assertFailedWith(Cause.DRIVER_NOT_LOADED);
        assertTrue(error.startsWith("hwtool: open /dev/cpu/0/cpuid: "), error);
        assertTrue(error.contains("CPU 0 is online but /dev/cpu/0 is missing"), error);
    }

    @Test
    void doctorNamesTheMissingNodesAndCapabilityAndExitsWithTheFirstFailure() {
        DoctorJsonView doctor = DoctorJsonView.of(CONTAINER.hwtool("doctor", "--json"));

        assertEquals("fail", doctor.status("msr_devices"));
        assertEquals("no /dev/cpu in this docker container: no CPU device nodes at all", doctor.detail("msr_devices"));
        assertTrue(doctor.fix("msr_devices").contains("start the container with --device=/dev/cpu"), doctor.fix("msr_devices"));

        assertEquals("warn", doctor.status("cpuid_devices"), "the instruction does not need the node");
        assertTrue(doctor.detail("cpuid_devices").startsWith("absent"), doctor.detail("cpuid_devices"));
        assertTrue(doctor.fix("cpuid_devices").contains("start the container with --device=/dev/cpu"), doctor.fix("cpuid_devices"));

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
