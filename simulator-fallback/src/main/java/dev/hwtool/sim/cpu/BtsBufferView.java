package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;

/**
 * The records of a BTS buffer in simulated memory, read in place: the DS interrupt routine hands
 * one of these to its listener, so that draining copies nothing and allocates nothing per record.
 * Valid only during the listener call (the routine then resets the index).
 */
public final class BtsBufferView {

    private final SimMemory memory;
    private long base;
    private int count;

    /** An empty view, {@linkplain #load loaded} for each drain (the CPU keeps one: a drain allocates nothing). */
    BtsBufferView(SimMemory memory) {
        this.memory = memory;
    }

    /** The records of the DS management area at {@code area}: from its buffer base up to its index. */
    static BtsBufferView of(SimMemory memory, long area) {
        return new BtsBufferView(memory).load(area);
    }

    /** This view, now over the records of the DS management area at {@code area}. */
    BtsBufferView load(long area) {
        long b = memory.read64(area + DsSaveArea.BTS_BUFFER_BASE);
        long index = memory.read64(area + DsSaveArea.BTS_INDEX);
        long n = Long.compareUnsigned(index, b) <= 0 ? 0 : (index - b) / DsSaveArea.BTS_RECORD_SIZE;
        base = b;
        count = (int) Math.min(n, Integer.MAX_VALUE);
        return this;
    }

    /** The buffer base, where the index goes back to once drained. */
    long base() {
        return base;
    }

    /** Records from the buffer base up to the index, oldest first. */
    public int count() {
        return count;
    }

    public long from(int i) {
        return memory.read64(address(i) + DsSaveArea.BTS_FROM);
    }

    public long to(int i) {
        return memory.read64(address(i) + DsSaveArea.BTS_TO);
    }

    public long flags(int i) {
        return memory.read64(address(i) + DsSaveArea.BTS_FLAGS);
    }

    public BtsRecord record(int i) {
        return new BtsRecord(from(i), to(i), flags(i));
    }

    private long address(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("BTS record " + i + " of " + count);
        }
        return base + (long) i * DsSaveArea.BTS_RECORD_SIZE;
    }
}
