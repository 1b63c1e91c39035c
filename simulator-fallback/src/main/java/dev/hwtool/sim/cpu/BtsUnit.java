package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;

import java.util.Set;

/**
 * Branch trace messages and the branch trace store of one simulated CPU (SDM Vol. 3B 17.4.5,
 * 17.4.6, 17.4.9; seeds 000, 001; SDM Vol. 3B Table 17-6; SDM Vol. 3B 17.4.9, Figure 17-8).
 *
 * <p>Table 17-6, all nine rows: with TR clear no BTM is generated. With TR set every taken
 * branch generates a BTM ({@link #generated}); it is stored in the BTS buffer when BTS is set,
 * unless BTS_OFF_OS and CPL = 0, or BTS_OFF_USR and CPL &gt; 0 (both set: stored never), and
 * IA32_MISC_ENABLE.BTS_UNAVAILABLE is clear. (The SDM's "not sent on the bus" has nothing to
 * observe in a simulator without a bus: BTMs are counted as generated whenever TR is set.)
 *
 * <p>Storing, through the 64-bit DS management area at IA32_DS_AREA in simulated memory:
 * <ul>
 * <li>a 24-byte record (from, to, flags) is written at the BTS index, and the index advances by
 *     24 — read from and written back to memory each time, so software sees and may change it;
 * <li>buffer end: when a record would not fit below the absolute maximum, BTINT = 0 wraps the
 *     index to the buffer base (circular buffer) and BTINT = 1 stops storing — the BTM is
 *     dropped and counted ({@link #dropped}). The SDM does not say what happens at the absolute
 *     maximum with BTINT set (docs/facts.md §1.5); stopping is the simulator's choice,
 *     matching Linux, which treats index ≥ absolute maximum as lost data;
 * <li>threshold: a store that brings the index from below the interrupt threshold to or past
 *     it requests a PMI, whatever BTINT says — seed 001: "It's not enough to clear the BTINT
 *     flag itself only" to prevent the interrupt; a threshold beyond the absolute maximum does.
 *     The BTS threshold does not set IA32_PERF_GLOBAL_STATUS.OvfBuf (unconfirmed either way;
 *     Linux does not rely on it for BTS) and does not freeze LBRs or counters (SDM 17.4.7
 *     lists only counter overflow and the PEBS threshold);
 * <li>a buffer smaller than the SDM minimum (absolute maximum &lt; base + 1 + 24: "results of BTS
 *     is undefined") or an index outside [base, absolute maximum] is flagged as a
 *     {@link Diagnostic}, and the simulator then stores nothing (counted as dropped).
 * </ul>
 * Flags bit 4 = predicted, except on Intel Core and Atom (Bonnell/Saltwell) microarchitectures,
 * which the SDM says do not support it (2009 ed. 16.4.9.2); there flags are 0.
 */
final class BtsUnit {

    static final long DEBUGCTL_TR = 1L << 6;
    static final long DEBUGCTL_BTS = 1L << 7;
    static final long DEBUGCTL_BTINT = 1L << 8;
    static final long DEBUGCTL_BTS_OFF_OS = 1L << 9;
    static final long DEBUGCTL_BTS_OFF_USR = 1L << 10;

    static final String TOO_SMALL = "bts-buffer-too-small";
    static final String OUTSIDE = "bts-index-outside-buffer";

    /** Family 6 models of the Core and Bonnell/Saltwell microarchitectures (Linux intel-family.h). */
    static final Set<Integer> NO_PREDICTED_FLAG = Set.of(0x0F, 0x16, 0x17, 0x1D, 0x1C, 0x26, 0x27, 0x35, 0x36);

    private final SimMemory memory;
    private final Diagnostics diagnostics;
    private final boolean predictedFlag;
    long dsArea;
    boolean unavailable;
    long generated;
    long stored;
    long dropped;
    /** Set when a store reached the interrupt threshold; the CPU delivers the PMI and clears it. */
    boolean thresholdReached;

    // The management area's fields as last read. The processor reads them from memory for every
    // BTM; the simulator re-reads them whenever software may have changed them: a new
    // IA32_DS_AREA or any write through SimMemory's public methods (the unit's own stores do not
    // count, unless its records can land on the management area itself).
    private long cachedArea = -1;
    private long cachedStamp = -1;
    private long cachedBase;
    private long cachedIndex;
    private long cachedMax;
    private long cachedThreshold;
    private boolean recordsMayOverlapArea;
    // The pages the last record and the BTS index word were stored into (SimMemory#pageOf): the
    // same stores as SimMemory's, without its page lookup twice per branch.
    private long recordPageNumber = -1;
    private long[] recordPage;
    private long[] indexPage;

    private void load() {
        long area = dsArea;
        cachedArea = area;
        cachedStamp = memory.stamp();
        cachedBase = memory.read64(area + DsSaveArea.BTS_BUFFER_BASE);
        cachedIndex = memory.read64(area + DsSaveArea.BTS_INDEX);
        cachedMax = memory.read64(area + DsSaveArea.BTS_ABSOLUTE_MAXIMUM);
        cachedThreshold = memory.read64(area + DsSaveArea.BTS_INTERRUPT_THRESHOLD);
        // Records are written in [base, max + 24); the fields live in [area, area + 32).
        recordsMayOverlapArea = Long.compareUnsigned(cachedBase, area + 32) < 0
                && Long.compareUnsigned(area, cachedMax + DsSaveArea.BTS_RECORD_SIZE) < 0;
        indexPage = null;
    }

    BtsUnit(SimMemory memory, Diagnostics diagnostics, boolean predictedFlag, RegisterFile regs) {
        this.memory = memory;
        this.diagnostics = diagnostics;
        this.predictedFlag = predictedFlag;
        regs.attach("IA32_DS_AREA", RegisterFile.MsrPort.of(() -> dsArea, v -> dsArea = v));
    }

    /** A taken branch while IA32_DEBUGCTL.TR is set. */
    void branch(long from, long to, int cpl, boolean mispredicted, long debugctl) {
        generated++;
        if ((debugctl & DEBUGCTL_BTS) == 0 || unavailable) {
            return;
        }
        if ((debugctl & (cpl == 0 ? DEBUGCTL_BTS_OFF_OS : DEBUGCTL_BTS_OFF_USR)) != 0) {
            return;
        }
        if (dsArea != cachedArea || memory.stamp() != cachedStamp) {
            load();
        }
        long base = cachedBase;
        long index = cachedIndex;
        long max = cachedMax;
        if (DsSaveArea.btsBufferTooSmall(base, max)) {
            if (diagnostics.occurred(TOO_SMALL)) {
                diagnostics.describe(TOO_SMALL, "BTS buffer 0x" + Long.toHexString(base) + "..0x"
                        + Long.toHexString(max) + " is smaller than the SDM minimum (absolute maximum < base + 1 + "
                        + DsSaveArea.BTS_RECORD_SIZE + "): BTS results undefined, nothing stored");
            }
            dropped++;
            return;
        }
        if (Long.compareUnsigned(index, base) < 0 || Long.compareUnsigned(index, max) > 0) {
            if (diagnostics.occurred(OUTSIDE)) {
                diagnostics.describe(OUTSIDE, "BTS index 0x" + Long.toHexString(index)
                        + " is outside the buffer 0x" + Long.toHexString(base) + "..0x" + Long.toHexString(max)
                        + ": nothing stored");
            }
            dropped++;
            return;
        }
        if (Long.compareUnsigned(index + DsSaveArea.BTS_RECORD_SIZE, max) > 0) {
            if ((debugctl & DEBUGCTL_BTINT) != 0) {
                dropped++;
                return;
            }
            index = base;
        }
        long flags = predictedFlag && !mispredicted ? DsSaveArea.BTS_FLAG_PREDICTED : 0;
        int offset = (int) (index & (SimMemory.PAGE_SIZE - 1));
        if ((index & 7) == 0 && offset <= SimMemory.PAGE_SIZE - DsSaveArea.BTS_RECORD_SIZE) {
            long pageNumber = index >>> SimMemory.PAGE_SHIFT;
            if (pageNumber != recordPageNumber) {
                recordPage = memory.pageOf(index);
                recordPageNumber = pageNumber;
            }
            int w = offset >>> 3;
            recordPage[w] = from;
            recordPage[w + 1] = to;
            recordPage[w + 2] = flags;
        } else {
            memory.store3x64(index, from, to, flags);
        }
        long next = index + DsSaveArea.BTS_RECORD_SIZE;
        long indexAt = cachedArea + DsSaveArea.BTS_INDEX;
        if ((indexAt & 7) == 0) {
            if (indexPage == null) {
                indexPage = memory.pageOf(indexAt);
            }
            indexPage[(int) (indexAt & (SimMemory.PAGE_SIZE - 1)) >>> 3] = next;
        } else {
            memory.store64(indexAt, next);
        }
        cachedIndex = next;
        stored++;
        if (recordsMayOverlapArea) {
            cachedStamp = -1; // the record may have overwritten the management area: read it again
        }
        long threshold = cachedThreshold;
        if (Long.compareUnsigned(index, threshold) < 0 && Long.compareUnsigned(next, threshold) >= 0) {
            thresholdReached = true;
        }
    }
}
