package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;

import java.util.ArrayList;
import java.util.List;

/**
 * The valid entries of a simulated LBR stack at one moment, most recent first, decoded, with the
 * raw register values they came from — the same facts as a list of {@link LbrEntry}, held in
 * arrays that are filled again for the next snapshot. The DS interrupt routine hands the CPU's
 * one snapshot to its listener on every counter-overflow PMI, so taking the sample allocates
 * nothing; like {@link BtsBufferView}, it is valid only during that call (copy what you keep,
 * e.g. with {@link #toList()}).
 */
public final class LbrSnapshot {

    private final int[] position;
    private final long[] from;
    private final long[] to;
    private final boolean[] mispredicted;
    private final int[] cycles;
    private final BranchType[] type;
    private final long[] fromMsr;
    private final long[] fromRaw;
    private final long[] toRaw;
    private final long[] infoRaw;
    private int count;

    LbrSnapshot(int capacity) {
        position = new int[capacity];
        from = new long[capacity];
        to = new long[capacity];
        mispredicted = new boolean[capacity];
        cycles = new int[capacity];
        type = new BranchType[capacity];
        fromMsr = new long[capacity];
        fromRaw = new long[capacity];
        toRaw = new long[capacity];
        infoRaw = new long[capacity];
    }

    /** Empties the snapshot before the LBR unit adds its entries. */
    void clear() {
        count = 0;
    }

    /** Adds the next older valid entry; the arguments are {@link LbrEntry}'s components. */
    void add(int pos, long f, long t, boolean mis, int cyc, BranchType ty, long msr, long fRaw, long tRaw, long iRaw) {
        int i = count++;
        position[i] = pos;
        from[i] = f;
        to[i] = t;
        mispredicted[i] = mis;
        cycles[i] = cyc;
        type[i] = ty;
        fromMsr[i] = msr;
        fromRaw[i] = fRaw;
        toRaw[i] = tRaw;
        infoRaw[i] = iRaw;
    }

    /** Valid entries (0 without LBR or with an empty stack). */
    public int count() {
        return count;
    }

    /** {@link LbrEntry#position()} of entry {@code i}: 0 = most recent, counting empty slots (call-stack pops) too. */
    public int position(int i) {
        return position[check(i)];
    }

    public long from(int i) {
        return from[check(i)];
    }

    public long to(int i) {
        return to[check(i)];
    }

    public boolean mispredicted(int i) {
        return mispredicted[check(i)];
    }

    /** The stored cycle count, or -1 where the format has none. */
    public int cycles(int i) {
        return cycles[check(i)];
    }

    /** INFO.BR_TYPE on architectural LBR with branch types, else null. */
    public BranchType type(int i) {
        return type[check(i)];
    }

    public long fromMsr(int i) {
        return fromMsr[check(i)];
    }

    public long fromRaw(int i) {
        return fromRaw[check(i)];
    }

    public long toRaw(int i) {
        return toRaw[check(i)];
    }

    public long infoRaw(int i) {
        return infoRaw[check(i)];
    }

    /** Entry {@code i} as a value. */
    public LbrEntry entry(int i) {
        check(i);
        return new LbrEntry(position[i], from[i], to[i], mispredicted[i], cycles[i], type[i], fromMsr[i], fromRaw[i],
                toRaw[i], infoRaw[i]);
    }

    /** A copy of every entry, most recent first. */
    public List<LbrEntry> toList() {
        List<LbrEntry> out = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            out.add(entry(i));
        }
        return out;
    }

    private int check(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("LBR entry " + i + " of " + count);
        }
        return i;
    }
}
