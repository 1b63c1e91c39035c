package dev.hwtool.arch.perf.abi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * One {@code struct perf_branch_entry} (24 bytes: from, to, a flags word), include/uapi/linux/perf_event.h.
 *
 * @param flags the raw third word; the accessors decode its bitfields
 */
public record PerfBranchEntry(long from, long to, long flags) {

    public static final int SIZE = 24;

    static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** The struct, unaligned as a record in a ring's data may be. */
    static final StructLayout LAYOUT = MemoryLayout.structLayout(U64.withName("from"), U64.withName("to"),
            U64.withName("flags"));

    /** The entry at {@code offset} of {@code seg}. */
    public static PerfBranchEntry read(MemorySegment seg, long offset) {
        return new PerfBranchEntry(seg.get(U64, offset), seg.get(U64, offset + 8), seg.get(U64, offset + 16));
    }

    public boolean mispred() {
        return bits(0, 1) != 0;
    }

    public boolean predicted() {
        return bits(1, 1) != 0;
    }

    public boolean inTx() {
        return bits(2, 1) != 0;
    }

    public boolean abort() {
        return bits(3, 1) != 0;
    }

    /** Cycles since the previous branch (0: not reported). */
    public int cycles() {
        return (int) bits(4, 16);
    }

    /** PERF_BR_* (see {@link #typeName()}). */
    public int type() {
        return (int) bits(20, 4);
    }

    /** PERF_BR_SPEC_*: 0 NA, 1 wrong path, 2 correct path, 3 committed. */
    public int spec() {
        return (int) bits(24, 2);
    }

    /** PERF_BR_NEW_* when {@link #type()} is EXTEND_ABI (15). */
    public int newType() {
        return (int) bits(26, 4);
    }

    /** PERF_BR_PRIV_*: 0 unknown, 1 user, 2 kernel, 3 hv. */
    public int priv() {
        return (int) bits(30, 3);
    }

    private long bits(int from, int width) {
        return (flags >>> from) & ((1L << width) - 1);
    }

    private static final String[] TYPES = {"UNKNOWN", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
            "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI"};

    /** The PERF_BR_* name of {@link #type()}. */
    public String typeName() {
        return TYPES[type()];
    }

    /** Packs the bitfields as the kernel lays them out (for fixtures and the simulator). */
    public static long flags(boolean mispred, boolean predicted, boolean inTx, boolean abort, int cycles, int type,
                             int spec, int newType, int priv) {
        return (mispred ? 1L : 0) | (predicted ? 2L : 0) | (inTx ? 4L : 0) | (abort ? 8L : 0)
                | (cycles & 0xFFFFL) << 4 | (type & 0xFL) << 20 | (spec & 3L) << 24 | (newType & 0xFL) << 26
                | (priv & 7L) << 30;
    }
}
