package dev.hwtool.arch.msr;

/**
 * The MSRs that count on their own: a read after a write returns the value written plus what
 * was counted since, and a value read a moment ago is already stale. A careful write verifies
 * them by their own rule (the read-back has counted on from the value written, by less than half
 * the counter's range) and never puts a stale value back in a rollback, which would move the
 * counter backwards.
 *
 * <p>Intel: SDM Vol. 4 Table 2-2 (IA32_TIME_STAMP_COUNTER 10H, IA32_PMC0-7 C1H-C8H, IA32_MPERF
 * E7H, IA32_APERF E8H, IA32_FIXED_CTR0-7 309H-310H, IA32_A_PMC0-7 4C1H-4C8H), SDM Vol. 3B 17.17
 * (the TSC) and 20.2 (the counters). AMD: APM Vol. 2 13.2 (PerfCtr0-3 C001_0004H-C001_0007H,
 * the extended PerfCtr0-5 at the odd addresses C001_0201H-C001_020BH), 17.3 (MPERF/APERF).
 */
public final class CountingRegisters {

    private CountingRegisters() {
    }

    /** Whether the MSR at {@code address} counts on its own. */
    public static boolean counts(long address) {
        return address == 0x10                                   // IA32_TIME_STAMP_COUNTER
                || address >= 0xC1 && address <= 0xC8            // IA32_PMC0-7
                || address == 0xE7 || address == 0xE8            // IA32_MPERF, IA32_APERF
                || address >= 0x309 && address <= 0x310          // IA32_FIXED_CTR0-7
                || address >= 0x4C1 && address <= 0x4C8          // IA32_A_PMC0-7
                || address >= 0xC001_0004L && address <= 0xC001_0007L   // AMD PerfCtr0-3
                || address >= 0xC001_0201L && address <= 0xC001_020BL && (address & 1) == 1; // AMD PerfCtr0-5
    }

    /**
     * Whether {@code back}, read after writing {@code written}, has counted on from it: forward, by
     * less than half the range of the bits in {@code mask} (a counter that wrapped counts on too).
     */
    public static boolean countedOn(long written, long back, long mask) {
        if (mask == 0) {
            return true;
        }
        long delta = (back - written) & mask;
        // 2^(width-1) for the counter's bits (a contiguous mask from bit 0): half its range
        return Long.compareUnsigned(delta, Long.highestOneBit(mask)) < 0;
    }
}
