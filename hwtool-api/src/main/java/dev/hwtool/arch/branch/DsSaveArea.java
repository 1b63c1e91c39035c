package dev.hwtool.arch.branch;

/**
 * The 64-bit DS buffer management area and the BTS record (SDM Vol. 3B 17.4.9, Figure 17-8;
 * Linux {@code struct debug_store} and {@code struct bts_record}; SDM Vol. 3B 17.4.9, Figure 17-8). The
 * 64-bit layout applies in IA-32e mode and whenever DTES64 is set ("the 64-bit record formats
 * for BTS and PEBS apply to DS save area for all operating modes").
 */
public final class DsSaveArea {

    public static final int BTS_BUFFER_BASE = 0x00;
    public static final int BTS_INDEX = 0x08;
    public static final int BTS_ABSOLUTE_MAXIMUM = 0x10;
    public static final int BTS_INTERRUPT_THRESHOLD = 0x18;
    public static final int PEBS_BUFFER_BASE = 0x20;
    public static final int PEBS_INDEX = 0x28;
    public static final int PEBS_ABSOLUTE_MAXIMUM = 0x30;
    public static final int PEBS_INTERRUPT_THRESHOLD = 0x38;
    /**
     * PEBS counter reset values: counter c's at 40H + 8·c, with IA32_PERF_GLOBAL_STATUS numbering
     * (general-purpose counter i at i, fixed counter j at 32 + j): SDM Figure 17-8 shows counters
     * 0–3; Linux's struct debug_store declares pebs_event_reset[MAX_PEBS_EVENTS_FMT4] indexed so.
     */
    public static final int PEBS_COUNTER_RESET = 0x40;
    /** Size of the management area up to and including the four PEBS counter-reset fields. */
    public static final int SIZE = 0x60;

    /** A 64-bit BTS record: from @0, to @8, flags @16. */
    public static final int BTS_RECORD_SIZE = 24;
    public static final int BTS_FROM = 0;
    public static final int BTS_TO = 8;
    public static final int BTS_FLAGS = 16;
    /** BTS record flags bit 4: the branch was predicted (1 = predicted). */
    public static final long BTS_FLAG_PREDICTED = 1L << 4;

    private DsSaveArea() {
    }

    /** Offset of counter {@code counter}'s PEBS reset value (GLOBAL_STATUS numbering). */
    public static int pebsCounterReset(int counter) {
        return PEBS_COUNTER_RESET + 8 * counter;
    }

    /**
     * The SDM's minimum buffer: "If the buffer size is set to less than the minimum allowable
     * value (i.e. BTS absolute maximum &lt; 1 + size of BTS record), the results of BTS is
     * undefined" — measured from the buffer base.
     */
    public static boolean btsBufferTooSmall(long base, long absoluteMaximum) {
        return Long.compareUnsigned(absoluteMaximum - base, 1 + BTS_RECORD_SIZE) < 0
                || Long.compareUnsigned(absoluteMaximum, base) < 0;
    }
}
