package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.arch.pebs.AdaptivePebs;
import dev.hwtool.arch.pebs.PebsRecordFormat;

/**
 * The records of a PEBS buffer in simulated memory, from the buffer base up to the PEBS index,
 * read in place (the DS interrupt routine hands one to its listener; valid during that call).
 * Legacy records (formats 0–3) have one size; adaptive records say theirs in format_size, so
 * they are walked one by one. The CPU keeps one view that each drain {@linkplain #load loads}
 * again, so draining allocates nothing once the address array has grown to the buffer's size.
 */
public final class PebsBufferView {

    private final SimMemory memory;
    private final PebsRecordFormat legacy;
    private long base;
    private long index;
    private long[] addresses = new long[16];
    private int count;

    /** An empty view of records in {@code legacy} format, or adaptive ones when null. */
    PebsBufferView(SimMemory memory, PebsRecordFormat legacy) {
        this.memory = memory;
        this.legacy = legacy;
    }

    /** The records of the DS area at {@code area} in {@code legacy} format, or adaptive ones when null. */
    static PebsBufferView of(SimMemory memory, long area, PebsRecordFormat legacy) {
        return new PebsBufferView(memory, legacy).load(area);
    }

    /** This view, now over the records of the DS area at {@code area}. */
    PebsBufferView load(long area) {
        base = memory.read64(area + DsSaveArea.PEBS_BUFFER_BASE);
        index = memory.read64(area + DsSaveArea.PEBS_INDEX);
        int n = 0;
        long p = base;
        while (Long.compareUnsigned(p, index) < 0 && n < (1 << 20)) {
            long size = legacy != null ? legacy.size()
                    : memory.read64(p + AdaptivePebs.FORMAT_SIZE) >>> AdaptivePebs.RECORD_SIZE_SHIFT;
            if (size == 0 || Long.compareUnsigned(p + size, index) > 0) {
                break;
            }
            if (n == addresses.length) {
                addresses = java.util.Arrays.copyOf(addresses, n * 2);
            }
            addresses[n++] = p;
            p += size;
        }
        count = n;
        return this;
    }

    long base() {
        return base;
    }

    long index() {
        return index;
    }

    public int count() {
        return count;
    }

    /** Linear address of record {@code i}. */
    public long address(int i) {
        if (i < 0 || i >= count) {
            throw new IndexOutOfBoundsException("PEBS record " + i + " of " + count);
        }
        return addresses[i];
    }

    /** Bytes of record {@code i}. */
    public int size(int i) {
        return legacy != null ? legacy.size()
                : (int) (memory.read64(address(i) + AdaptivePebs.FORMAT_SIZE) >>> AdaptivePebs.RECORD_SIZE_SHIFT);
    }

    /** The eventing instruction's IP: real_ip (format 2+), the basic group's ip (adaptive), else the record's ip. */
    public long eventingIp(int i) {
        if (legacy == null) {
            return memory.read64(address(i) + AdaptivePebs.IP);
        }
        return memory.read64(address(i) + (legacy.hasRealIp() ? PebsRecordFormat.REAL_IP : PebsRecordFormat.IP));
    }

    /** The record's IP field (legacy: after the instruction with PEBS_TRAP; adaptive: the basic group's). */
    public long ip(int i) {
        return memory.read64(address(i) + (legacy == null ? AdaptivePebs.IP : PebsRecordFormat.IP));
    }

    /** Applicable counters (GLOBAL_STATUS numbering); 0 for format 0, which has no such field. */
    public long applicableCounters(int i) {
        if (legacy == null) {
            return memory.read64(address(i) + AdaptivePebs.APPLICABLE_COUNTERS);
        }
        return legacy.hasStatus() ? memory.read64(address(i) + PebsRecordFormat.STATUS) : 0;
    }

    /** The TSC when the record was written, or -1 where the format has none (formats 0–2). */
    public long tsc(int i) {
        if (legacy == null) {
            return memory.read64(address(i) + AdaptivePebs.TSC);
        }
        return legacy.hasTsc() ? memory.read64(address(i) + PebsRecordFormat.TSC) : -1;
    }

    public PebsRecord record(int i) {
        return new PebsRecord(address(i), size(i), ip(i), eventingIp(i), applicableCounters(i), tsc(i));
    }
}
