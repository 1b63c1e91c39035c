package dev.hwtool.ffm;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.jna.JnaBinding;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * CPUID through FfmBinding's two downcalls into the same stub: the syscall shape a process's
 * first calls take (one link for a one-shot command) and the critical handle it switches to.
 * Leaves 0 and 0x80000000 (vendor and highest leaves) answer the same on every CPU, so the
 * test need not pin its thread; JNA's stub call is the independent reference.
 */
class FfmCpuidShapesTest {

    private static final int[] LEAVES = {0, 0x8000_0000};

    @Test
    void theSharedShapeAndTheCriticalHandleAnswerAsJnaDoes() {
        FfmBinding ffm = new FfmBinding();
        try (JnaBinding jna = new JnaBinding()) {
            for (int leaf : LEAVES) {
                CpuidRegs reference = jna.cpuid(leaf, 0);
                assertEquals(reference, FfmBinding.cpuidThroughSharedShape(leaf, 0), "shared shape, leaf 0x" + Integer.toHexString(leaf));
                // Past the shared calls every caller gets the critical handle.
                for (int i = 0; i <= FfmBinding.SHARED_CPUID_CALLS; i++) {
                    assertEquals(reference, ffm.cpuid(leaf, 0), "call " + i + ", leaf 0x" + Integer.toHexString(leaf));
                }
                assertTrue(FfmBinding.cpuidIsCritical(), "switched to the critical handle after "
                        + FfmBinding.SHARED_CPUID_CALLS + " calls");
                assertEquals(reference, ffm.cpuid(leaf, 0), "critical handle, leaf 0x" + Integer.toHexString(leaf));
            }
        }
    }

    @Test
    void aSubleafAndANegativeLeafReachTheStubUnchanged() {
        try (JnaBinding jna = new JnaBinding()) {
            // 0x80000000 is negative as an int: the shared shape passes it sign-extended to 64 bits,
            // and the stub reads edi only. Leaf 0 ignores the subleaf; a subleaf must not upset it.
            assertEquals(jna.cpuid(0x8000_0000, 0), FfmBinding.cpuidThroughSharedShape(0x8000_0000, 0));
            assertEquals(jna.cpuid(0, 0), FfmBinding.cpuidThroughSharedShape(0, 7));
        }
    }
}
