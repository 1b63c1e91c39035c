package dev.hwtool.arch.perf.abi;

import java.lang.foreign.MemorySegment;

/**
 * One hardware BTS record as the intel_bts PMU leaves it in the AUX area: 24 bytes {from, to,
 * misc} (SDM Vol. 3B 17.4.8, 64-bit format; arch/x86/events/intel/bts.c). perf decodes bit 4 of
 * misc as "predicted" (tools/perf/util/intel-bts.c); a record with from = to = 0 is padding
 * (bts_buffer_pad_out) and carries no branch.
 */
public record BtsRecord(long from, long to, long misc) {

    public static final int SIZE = 24;
    /** misc bit 4: the branch was predicted (tools/perf/util/intel-bts.c). */
    public static final long MISC_PREDICTED = 0x10;

    public static BtsRecord read(MemorySegment seg, long offset) {
        return new BtsRecord(seg.get(PerfBranchEntry.U64, offset), seg.get(PerfBranchEntry.U64, offset + 8),
                seg.get(PerfBranchEntry.U64, offset + 16));
    }

    public boolean predicted() {
        return (misc & MISC_PREDICTED) != 0;
    }

    public boolean padding() {
        return from == 0 && to == 0;
    }

    /** A visitor for {@link #forEach}: no allocation per record. */
    @FunctionalInterface
    public interface Visitor {
        void branch(long from, long to, long misc);
    }

    /**
     * Visits every non-padding record in {@code [offset, offset + length)}; a trailing partial
     * record (length not a multiple of 24) is an error, as the hardware writes whole records.
     *
     * @return the number of records visited
     */
    public static long forEach(MemorySegment seg, long offset, long length, Visitor v) {
        if (length % SIZE != 0) {
            throw new PerfParseException(offset, "BTS data of " + length + " bytes is not a whole number of 24-byte records");
        }
        if (offset < 0 || offset + length > seg.byteSize()) {
            throw new PerfParseException(offset, "BTS data of " + length + " bytes runs past the buffer");
        }
        long n = 0;
        for (long at = offset; at < offset + length; at += SIZE) {
            long from = seg.get(PerfBranchEntry.U64, at);
            long to = seg.get(PerfBranchEntry.U64, at + 8);
            if (from == 0 && to == 0) {
                continue;
            }
            v.branch(from, to, seg.get(PerfBranchEntry.U64, at + 16));
            n++;
        }
        return n;
    }
}
