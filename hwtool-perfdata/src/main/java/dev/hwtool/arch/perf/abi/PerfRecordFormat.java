package dev.hwtool.arch.perf.abi;

/**
 * What the layout of an event's records depends on: the attr's sample_type, read_format,
 * branch_sample_type, the register masks (REGS_USER/REGS_INTR carry one u64 per set bit) and
 * sample_id_all (non-sample records then end in a sample_id trailer, kernel/events/core.c
 * perf_event__output_id_sample).
 */
public record PerfRecordFormat(long sampleType, long readFormat, long branchSampleType, long sampleRegsUser,
                               long sampleRegsIntr, boolean sampleIdAll) {

    public static PerfRecordFormat of(PerfEventAttr attr) {
        return new PerfRecordFormat(attr.sampleType(), attr.readFormat(), attr.branchSampleType(),
                attr.sampleRegsUser(), attr.sampleRegsIntr(), attr.has(PerfAttrFlag.SAMPLE_ID_ALL));
    }

    public boolean samples(long bit) {
        return (sampleType & bit) != 0;
    }

    /** Bytes of the sample_id trailer of non-sample records (0 without sample_id_all). */
    public int sampleIdSize() {
        if (!sampleIdAll) {
            return 0;
        }
        int n = 0;
        for (long bit : new long[] {PerfSample.TID, PerfSample.TIME, PerfSample.ID, PerfSample.STREAM_ID,
                PerfSample.CPU, PerfSample.IDENTIFIER}) {
            if (samples(bit)) {
                n += 8;
            }
        }
        return n;
    }
}
