package dev.hwtool.containers;

import com.github.dockerjava.api.model.Capability;
import dev.hwtool.caps.Verdicts;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code docker run --device /dev/cpu/0/cpuid --cap-add SYS_ADMIN --cap-drop SYS_RAWIO}: a
 * container with more than docker's default capabilities, even CAP_SYS_ADMIN, but without the
 * one msr_open checks, so the report must single it out. (--cap-add ALL is not used: docker
 * cannot grant a capability its own bounding set lacks, and on this machine it lacks
 * CAP_SYS_RESOURCE: "unable to apply caps: operation not permitted".)
 */
@ExtendWith({DockerDaemon.class, HostCpuidNode.class})
@Testcontainers
class NoRawioIT {

    @Container
    static final HwtoolContainer CONTAINER = new HwtoolContainer()
            .withHostDevices(HostCpuidNode.CPU0)
            .withCapabilities(List.of(Capability.SYS_ADMIN), List.of(Capability.SYS_RAWIO));

    @Test
    void capsSaysCapSysRawioIsTheMissingCapability() {
        CapsJsonView caps = new CapsJsonView(CONTAINER.hwtool("caps", "--json").assertOk().json());
        assertFalse(caps.has(dev.hwtool.caps.Capability.CAP_SYS_RAWIO), "CapEff bit 17 dropped");
        assertTrue(caps.has(dev.hwtool.caps.Capability.CAP_SYS_ADMIN), "--cap-add SYS_ADMIN shows in CapEff bit 21");
        assertTrue(caps.has(dev.hwtool.caps.Capability.CAP_DAC_OVERRIDE), "docker's default set is kept");
        String capEff = "CapEff 0x" + Long.toHexString(caps.capEff()) + " lacks CAP_SYS_RAWIO: msr_open returns EPERM";
        for (String msr : List.of("msr_read", "msr_write")) {
            assertFalse(caps.usable(msr), caps.reason(msr));
            assertTrue(caps.reason(msr).contains(capEff), caps.reason(msr));
            // one "start the container with" clause, which adds the capability (once) to any other flag
            assertTrue(caps.remedy(msr).matches(".*start the container with (\\S+ )*--cap-add=SYS_RAWIO\\b.*"),
                    caps.remedy(msr));
            assertEquals(1, caps.remedy(msr).split("start the container with", -1).length - 1, caps.remedy(msr));
            assertEquals(1, caps.remedy(msr).split("--cap-add=SYS_RAWIO", -1).length - 1, caps.remedy(msr));
        }
        assertTrue(caps.usable("cpuid"), caps.reason("cpuid"));
    }

    @Test
    void capsTextSaysNoCapSysRawio() {
        ContainerRun caps = CONTAINER.hwtool("caps").assertOk();
        assertTrue(caps.out().lines().anyMatch(l -> l.matches("\\s+credentials\\s+euid 0; CAP_SYS_RAWIO no, CAP_SYS_ADMIN yes.*")),
                caps::toString);
        assertTrue(caps.out().contains("--cap-add=SYS_RAWIO"), caps::toString);
    }

    @Test
    void theCpuidDeviceNeedsNoCapability() {
        // cpuid_open (arch/x86/kernel/cpuid.c) checks only that the CPU exists, unlike msr_open.
        ContainerRun device = CONTAINER.hwtool("cpuid", "--source", "device", "-p", "0", "-l", "0").assertOk();
        ContainerRun instruction = CONTAINER.hwtool("cpuid", "-p", "0", "-l", "0").assertOk();
        assertEquals(instruction.out(), device.out());
    }

    @Test
    void doctorFailsTheCapabilityCheckWithTheContainerFix() {
        DoctorJsonView doctor = DoctorJsonView.of(CONTAINER.hwtool("doctor", "--json"));
        assertEquals("fail", doctor.status("cap_sys_rawio"));
        assertEquals("missing_capability", doctor.cause("cap_sys_rawio"));
        assertTrue(doctor.detail("cap_sys_rawio").matches("euid 0, CapEff 0x\\p{XDigit}+ lacks CAP_SYS_RAWIO: msr_open returns EPERM"),
                doctor.detail("cap_sys_rawio"));
        assertEquals(Verdicts.ADD_RAWIO_TO_CONTAINER, doctor.fix("cap_sys_rawio"));
        assertTrue(doctor.fix("container").endsWith("--cap-add=SYS_RAWIO"), doctor.fix("container"));
    }
}
