package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CPUID faulting (arch_prctl ARCH_SET_CPUID, arch/x86/kernel/process.c): with it on, the CPUID
 * instruction raises SIGSEGV in user space, which would end the JVM. The instruction source
 * asks the kernel first and refuses with the reason. The flag belongs to the calling thread,
 * so the test turns it on in a thread of its own, which ends with it.
 */
class CpuidFaultingTest {

    private static final long SYS_ARCH_PRCTL = 158;
    private static final long ARCH_SET_CPUID = 0x1012;

    @ParameterizedTest
    @MethodSource("dev.hwtool.linux.CpuidSourcesTest#bindings")
    void theInstructionIsRefusedNotRunWhenCpuidFaultsForThisThread(NativeBinding b) throws Exception {
        AtomicReference<Object> outcome = new AtomicReference<>();
        Thread t = Thread.ofPlatform().start(() -> {
            try {
                b.syscall(SYS_ARCH_PRCTL, ARCH_SET_CPUID, 0);
            } catch (ErrnoException e) {
                outcome.set(e);
                return;
            }
            try {
                InstructionCpuidSource insn = new InstructionCpuidSource(b);
                insn.cpuid(insn.defaultCpu(), 0, 0);
                outcome.set("answered");
            } catch (HwException e) {
                outcome.set(e);
            }
        });
        t.join();
        Object o = outcome.get();
        assertNotNull(o);
        if (o instanceof ErrnoException e) {
            // The kernel refuses ARCH_SET_CPUID with ENODEV exactly when the CPU has no CPUID
            // faulting (X86_FEATURE_CPUID_FAULT, "cpuid_fault" in /proc/cpuinfo): a law either way.
            assertEquals(Errno.ENODEV, e.errno(), e.getMessage());
            assertFalse(Preconditions.Hardware.cpuFlag("cpuid_fault"), "the CPU claims cpuid_fault, yet ARCH_SET_CPUID failed: " + e);
            return;
        }
        HwException e = (HwException) o;
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertTrue(e.getMessage().startsWith("CPUID faulting is on for this process"), e.getMessage());
        assertTrue(e.remedy().orElseThrow().contains("/dev/cpu/N/cpuid"));
        // and on this thread, where it is off, the instruction runs
        assertTrue(new InstructionCpuidSource(b).cpuid(new InstructionCpuidSource(b).defaultCpu(), 0, 0).eax() > 0);
    }
}
