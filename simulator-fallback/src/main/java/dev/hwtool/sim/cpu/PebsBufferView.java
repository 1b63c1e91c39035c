package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.arch.pebs.AdaptivePebs;
import dev.hwtool.arch.pebs.PebsRecordFormat;

/**
 * The records of a PEBS buffer in simulated memory, from the buffer base up to the PEBS index,
 * read in place (the DS interrupt routine hands one to its listener; valid during that call).
 * Legacy records (formats 0–3) have one size; adaptive records say theirs in format_size, so
 * they are walked one by one.
 */
public final class PebsBufferView {

    private final SimMemory memory;
    private final long base;
    private final long index;
    private final PebsRecordFormat legacy;
    private final long[] addresses;

    private PebsBufferView(SimMemory memory, long base, long index, PebsRecordFormat legacy, long[] addresses) {
        this.memory = memory;
        this.base = base;
        this.index = index;
        this.legacy = legacy;
        this.addresses = addresses;
    }

    /** The records of the DS area at {@code area} in {@code legacy} format, or adaptive ones when null. */
    static PebsBufferView of(SimMemory memory, long area, PebsRecordFormat legacy) {
        long base = memory.read64(area + DsSaveArea.PEBS_BUFFER_BASE);
        long index = memory.read64(area + DsSaveArea.PEBS_INDEX);
        java.util.List<Long> at = new java.util.ArrayList<>();
        long p = base;
        while (Long.compareUnsigned(p, index) < 0 && at.size() < (1 << 20)) {
            long size = legacy != null ? legacy.size()
                    : memory.read64(p + AdaptivePebs.FORMAT_SIZE) >>> AdaptivePebs.RECORD_SIZE_SHIFT;
            if (size == 0 || Long.compareUnsigned(p + size, index) > 0) {
                break;
            }
            at.add(p);
            p += size;
        }
        return new PebsBufferView(memory, base, index, legacy,
                at.stream().mapToLong(Long::longValue).toArray());
    }

    long base() {
        return base;
    }

    long index() {
        return index;
    }

    public int count() {
        return addresses.length;
    }

    /** Linear address of record {@code i}. */
    public long address(int i) {
        return addresses[i];
    }

    /** Bytes of record {@code i}. */
    public int size(int i) {
        return legacy != null ? legacy.size()
                : (int) (memory.read64(addresses[i] + AdaptivePebs.FORMAT_SIZE) >>> AdaptivePebs.RECORD_SIZE_SHIFT);
    }

    /** The eventing instruction's IP: real_ip (format 2+), the basic group's ip (adaptive), else the record's ip. */
    public long eventingIp(int i) {
        if (legacy == null) {
            return memory.read64(addresses[i] + AdaptivePebs.IP);
        }
        return memory.read64(addresses[i] + (legacy.hasRealIp() ? PebsRecordFormat.REAL_IP : PebsRecordFormat.IP));
    }

    /** The record's IP field (legacy: after the instruction with PEBS_TRAP; adaptive: the basic group's). */
    public long ip(int i) {
        return memory.read64(addresses[i] + (legacy == null ? AdaptivePebs.IP : PebsRecordFormat.IP));
    }

    /** Applicable counters (GLOBAL_STATUS numbering); 0 for format 0, which has no such field. */
    public long applicableCounters(int i) {
        if (legacy == null) {
            return memory.read64(addresses[i] + AdaptivePebs.APPLICABLE_COUNTERS);
        }
        return legacy.hasStatus() ? memory.read64(addresses[i] + PebsRecordFormat.STATUS) : 0;
    }

    /** The TSC when the record was written, or -1 where the format has none (formats 0–2). */
    public long tsc(int i) {
        if (legacy == null) {
            return memory.read64(addresses[i] + AdaptivePebs.TSC);
        }
        return legacy.hasTsc() ? memory.read64(addresses[i] + PebsRecordFormat.TSC) : -1;
    }

    public PebsRecord record(int i) {
        return new PebsRecord(address(i), size(i), ip(i), eventingIp(i), applicableCounters(i), tsc(i));
    }
}
