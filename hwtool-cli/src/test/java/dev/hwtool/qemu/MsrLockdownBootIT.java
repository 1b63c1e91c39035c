package dev.hwtool.qemu;

import dev.hwtool.api.Cause;
import dev.hwtool.linux.sys.Bindings;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The real msr driver under {@code lockdown=integrity} (security/lockdown, LOCKDOWN_MSR refuses
 * msr_write with EPERM): reads work, writes are LOCKDOWN. Then, in the same JVM after it gives
 * up root, the two refusals of an unprivileged user: MISSING_CAPABILITY and PERMISSION_DENIED.
 */
class MsrLockdownBootIT {

    private static Observations guest;

    @BeforeAll
    static void boot() throws Exception {
        Kernel kernel = RealKernel.require();
        guest = RealKernel.boot(RealKernel.guest("lockdown", kernel).modules("cpuid", "msr").kernelArgs("lockdown=integrity")
                .command(RealKernel.checksCommand("lockdown")).build());
    }

    @Test
    void theGuestJvmRanToTheEnd() {
        assertEquals(0, guest.run().guestExit().getAsInt(), () -> "guest JVM exit status\n" + guest.run().consoleTail(30));
    }

    @Test
    void theKernelIsLockedDownForIntegrity() {
        String lockdown = guest.value("lockdown");
        assertTrue(lockdown.contains("[integrity]"), "/sys/kernel/security/lockdown: " + lockdown);
    }

    @Test
    void readsWork() {
        for (String b : Bindings.names()) {
            assertEquals("0,1", guest.values("cpus/" + b).get("cpus"));
            for (int cpu : List.of(0, 1)) {
                assertEquals(cpu, guest.register("read/" + b + "/cpu" + cpu + "/IA32_TSC_AUX"), b + " cpu" + cpu + " IA32_TSC_AUX");
                assertEquals(0xFEE00L, guest.register("read/" + b + "/cpu" + cpu + "/IA32_APIC_BASE") >>> 12 & 0xFFFFFL);
            }
        }
    }

    @Test
    void writesAreRefusedAsLockdownAndChangeNothing() {
        for (String b : Bindings.names()) {
            String message = guest.failure("write/" + b, Cause.LOCKDOWN);
            assertTrue(!message.isBlank() && message.lines().count() == 1, "one-line message: " + message);
            Map<String, String> after = guest.values("after-write/" + b);
            assertEquals(after.get("before"), after.get("after"), b + " IA32_TSC_AUX unchanged");
        }
    }

    @Test
    void withoutRootTheDeviceModeAndTheCapabilityEachRefuse() {
        assertEquals(Map.of("cpu0", "rw-rw-rw-", "cpu1", "rw-------"), guest.values("chmod"));
        Map<String, String> status = guest.values("drop");
        assertTrue(status.get("Uid").matches("65534\\s+65534\\s+65534\\s+65534"), "Uid: " + status.get("Uid"));
        assertEquals("0000000000000000", status.get("CapEff"), "no effective capabilities");
        assertEquals("0000000000000000", status.get("CapPrm"), "no permitted capabilities");
        for (String b : Bindings.names()) {
            guest.failure("unprivileged/" + b + "/cpu0", Cause.MISSING_CAPABILITY);
            guest.failure("unprivileged/" + b + "/cpu1", Cause.PERMISSION_DENIED);
        }
    }
}
