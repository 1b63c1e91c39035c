package dev.hwtool.arch.msr;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CountingRegistersTest {

    private static final long W48 = (1L << 48) - 1;

    @Test
    void theCountersOfTheSdmAndTheApmCountAndControlRegistersDoNot() {
        for (long a : new long[]{0x10, 0xC1, 0xC8, 0xE7, 0xE8, 0x309, 0x30C, 0x4C1, 0xC001_0004L, 0xC001_0201L, 0xC001_020BL}) {
            assertTrue(CountingRegisters.counts(a), Long.toHexString(a));
        }
        // IA32_TSC_ADJUST, IA32_DEBUGCTL, IA32_PERFEVTSEL0, IA32_FIXED_CTR_CTRL, AMD PerfEvtSel0 (C001_0200H)
        for (long a : new long[]{0x3B, 0x1D9, 0x186, 0x38D, 0xC001_0000L, 0xC001_0200L, 0xC001_020AL}) {
            assertFalse(CountingRegisters.counts(a), Long.toHexString(a));
        }
    }

    @Test
    void aReadBackThatCountedOnIsVerifiedOneThatWentBackIsNot() {
        // the simulator's TSC read back 0x1064 after 0x1000 was written (issue 26)
        assertTrue(CountingRegisters.countedOn(0x1000, 0x1064, -1L));
        assertTrue(CountingRegisters.countedOn(0x1000, 0x1000, -1L));
        assertFalse(CountingRegisters.countedOn(0x1000, 0xFFF, -1L), "backwards");
        // a 48-bit counter written near its top wraps and counts on
        assertTrue(CountingRegisters.countedOn(W48 - 5, 10, W48));
        assertFalse(CountingRegisters.countedOn(0, W48, W48), "one short of a whole lap is backwards by one");
        assertFalse(CountingRegisters.countedOn(0, 1L << 47, W48), "half the range is not a plausible count");
    }
}
