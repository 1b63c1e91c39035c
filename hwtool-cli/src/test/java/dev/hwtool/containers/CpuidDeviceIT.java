package dev.hwtool.containers;

import com.github.dockerjava.api.model.Capability;
import dev.hwtool.api.Cause;
import dev.hwtool.io.CpuList;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code docker run --device /dev/cpu/0/cpuid --cap-add SYS_RAWIO}: CPU 0's cpuid node and
 * the capability the msr driver asks for, but no other CPU's nodes.
 */
@ExtendWith({DockerDaemon.class, HostCpuidNode.class})
@Testcontainers
class CpuidDeviceIT {

    @Container
    static final HwtoolContainer CONTAINER = new HwtoolContainer()
            .withHostDevices(HostCpuidNode.CPU0)
            .withCapabilities(List.of(Capability.SYS_RAWIO), List.of());

    @Test
    void capsSeesExactlyTheOneNodePassedInAndCapSysRawio() {
        CapsJsonView caps = new CapsJsonView(CONTAINER.hwtool("caps", "--json").assertOk().json());
        assertTrue(caps.devCpuPresent());

        Map<String, Object> node = caps.cpuidNode(0);
        assertEquals(true, node.get("present"), node::toString);
        assertEquals(true, node.get("char_device"), node::toString);
        assertEquals(203, ((Number) node.get("major")).intValue(), "CPUID_MAJOR (arch/x86/kernel/cpuid.c)");
        assertEquals(0, ((Number) node.get("minor")).intValue(), node::toString);
        assertEquals(true, node.get("readable"), node::toString);
        List<Integer> online = caps.onlineCpus();
        for (int cpu : online) {
            if (cpu != 0) {
                assertEquals(false, caps.cpuidNode(cpu).get("present"), "only CPU 0's node was passed in");
            }
        }

        assertTrue(caps.usable("cpuid"), caps.reason("cpuid"));
        assertTrue(caps.reason("cpuid").contains("/dev/cpu/N/cpuid readable on 1 of " + online.size() + " online CPUs"),
                caps.reason("cpuid"));

        assertTrue(caps.has(dev.hwtool.caps.Capability.CAP_SYS_RAWIO), "--cap-add SYS_RAWIO shows in CapEff bit 17");
        for (String msr : List.of("msr_read", "msr_write")) {
            // Still unusable (no msr node was passed in), but not for want of /dev/cpu or the capability.
            assertFalse(caps.usable(msr), caps.reason(msr));
            assertTrue(caps.reason(msr).contains("/dev/cpu/N/msr"), caps.reason(msr));
            assertFalse(caps.reason(msr).contains("no /dev/cpu in this"), caps.reason(msr));
            assertFalse(caps.reason(msr).contains("CAP_SYS_RAWIO"), caps.reason(msr));
        }
    }

    @Test
    void cpuidThroughTheDeviceAgreesWithTheInstructionOnCpu0() {
        // A host fact first: a hypervisor may answer the kernel's CPUID and user space's
        // differently (here bhyve traps the instruction while the kernel, a PVM guest, asks KVM:
        // two brands, two hypervisor leaves), and then hwtool's two sources rightly differ.
        Preconditions.cpuidPathsAgree();
        ContainerRun device = CONTAINER.hwtool("cpuid", "--source", "device", "-1").assertOk();
        ContainerRun instruction = CONTAINER.hwtool("cpuid", "--source", "instruction", "-1").assertOk();
        assertTrue(device.out().startsWith("CPU:\n   0x00000000 0x00: eax="), device::toString);
        assertEquals(instruction.out(), device.out());
    }

    @Test
    void cpuidThroughTheDeviceOnAllCpusNamesTheFirstMissingNode() {
        // The container sees the host's sysfs, so the host's list of online CPUs is the container's.
        List<Integer> others = CpuList.online().stream().filter(c -> c != 0).toList();
        Preconditions.hostHas(Preconditions.Hardware.SECOND_CPU, !others.isEmpty(),
                "a second online CPU, whose node is not passed in, is what this test needs");
        int missing = others.getFirst();
        ContainerRun all = CONTAINER.hwtool("cpuid", "--source", "device");
        String error = all.assertFailedWith(NoDevCpuIT.cpuidNodesMissing());
        assertTrue(error.startsWith("hwtool: open /dev/cpu/" + missing + "/cpuid: "), error);
        assertTrue(error.contains("CPU " + missing + " is online but /dev/cpu/" + missing + " is missing: not passed into"
                + " this docker container"), error);
        assertEquals("hwtool: fix: start the container with --device=/dev/cpu", all.err().lines().toList().get(1));
    }

    @Test
    void doctorSeesTheCapabilityAndAsksOnlyForTheDevices() {
        DoctorJsonView doctor = DoctorJsonView.of(CONTAINER.hwtool("doctor", "--json"));
        assertEquals("ok", doctor.status("cap_sys_rawio"), doctor.detail("cap_sys_rawio"));
        assertEquals("fail", doctor.status("msr_devices"), "no msr node was passed in");
        assertEquals("warn", doctor.status("cpuid_devices"));
        assertTrue(doctor.detail("cpuid_devices").startsWith("present on 1 of " + CpuList.online().size()
                + " online CPUs, absent on CPU"), doctor.detail("cpuid_devices"));
        // as root an absent node is not a permission problem: the fix passes the nodes in
        assertEquals(NoDevCpuIT.cpuidNodesMissing().name().toLowerCase(java.util.Locale.ROOT), doctor.cause("cpuid_devices"));
        assertEquals("start the container with --device=/dev/cpu", doctor.fix("cpuid_devices"));
        assertTrue(doctor.fix("container").endsWith("start the container with --device=/dev/cpu"), doctor.fix("container"));
    }
}
