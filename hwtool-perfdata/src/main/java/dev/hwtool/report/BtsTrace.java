package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.BtsRecord;
import dev.hwtool.arch.perf.abi.PerfRecord;

import java.lang.foreign.MemorySegment;

/**
 * Turns both encodings of a branch trace store recording into one ordered stream of taken
 * branches for a {@link BranchSink}:
 * <ul>
 *   <li>samples of the branches event at period 1 (the kernel's BTS without intel_bts, and the
 *       simulator): ip is the source, addr the target (arch/x86/events/intel/ds.c,
 *       intel_pmu_drain_bts_buffer); no prediction;</li>
 *   <li>intel_bts AUX data: 24-byte records {from, to, misc} (SDM Vol. 3B 17.4.8), misc bit 4
 *       "predicted"; all-zero records are the driver's padding (bts_buffer_pad_out) and are
 *       skipped.</li>
 * </ul>
 * Order is the recording's: samples and AUX chunks as they appear in the file.
 */
public final class BtsTrace {

    private final BranchSink sink;
    private long branches;
    private long predictionKnown;
    private long mispredicted;

    public BtsTrace(BranchSink sink) {
        this.sink = sink;
    }

    /** One branches-event sample: ip → addr. */
    public void sample(PerfRecord.Sample s) {
        sample(s.pid(), s.tid(), s.ip(), s.addr());
    }

    /** The fields of one branches-event sample, read without building its value (e.g. from a cursor). */
    public void sample(int pid, int tid, long ip, long addr) {
        branches++;
        sink.branch(pid, tid, ip, addr, Prediction.UNKNOWN);
    }

    /**
     * One PERF_RECORD_AUXTRACE chunk of intel_bts data for thread {@code tid} of process
     * {@code pid}.
     *
     * @throws dev.hwtool.arch.perf.abi.PerfParseException when the chunk is not whole 24-byte records
     */
    public void auxtrace(int pid, int tid, MemorySegment data) {
        BtsRecord.forEach(data, 0, data.byteSize(), (from, to, misc) -> {
            branches++;
            predictionKnown++;
            boolean predicted = (misc & BtsRecord.MISC_PREDICTED) != 0;
            if (!predicted) {
                mispredicted++;
            }
            sink.branch(pid, tid, from, to, predicted ? Prediction.PREDICTED : Prediction.MISPREDICTED);
        });
    }

    /** Branches passed on so far. */
    public long branches() {
        return branches;
    }

    /** Of them, branches whose prediction the trace gave (intel_bts records). */
    public long predictionKnown() {
        return predictionKnown;
    }

    /** Of those, branches not predicted. */
    public long mispredicted() {
        return mispredicted;
    }
}
