package dev.hwtool.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.RecordingSummary;

import java.nio.file.Path;

/**
 * A {@link Recorder} as hwtool's backends build it: one run of the target hands a {@link RecordSink}
 * the kernel-format perf records (perf_event_header first), and the contract's two ways to keep a
 * recording, in memory and in a perf.data file, are that one run into a {@link PerfDataWriter}.
 *
 * <p>The sink's rules (the recorder contract suite holds every backend to them):
 * <ul>
 *   <li>{@link RecordSink#begin} is called exactly once, before any record, with the attrs
 *       actually opened (after any fallback, e.g. BTS through the {@code branches} event);</li>
 *   <li>records reach the sink in the order the kernel (or simulator) wrote them, one CPU's
 *       ring at a time (rings are not merged by time: perf record does not, perf report sorts);
 *       AUX data ({@link RecordSink#auxtrace}) follows the PERF_RECORD_AUX record that announced it;</li>
 *   <li>a request the backend cannot serve throws {@link HwException} before the target runs
 *       and before {@code begin}.</li>
 * </ul>
 */
public interface SinkRecorder extends Recorder {

    /**
     * Runs {@code target} once with {@code request} recording, passing every record to {@code sink}.
     *
     * @return what was recorded and how the target ended
     * @throws HwException when the request cannot be recorded here, or the target cannot start
     */
    RecordingSummary record(RecordRequest request, RecordTarget target, RecordSink sink);

    /**
     * The file is checked and prepared before anything runs, written whole ({@link PerfDataWriter}),
     * an existing one kept as FILE.old (perf record's convention).
     */
    @Override
    default RecordingSummary record(RecordRequest request, RecordTarget target, Path perfData) {
        try (PerfDataWriter out = PerfDataWriter.create(perfData)) {
            RecordingSummary summary = record(request, target, out);
            out.commit();
            return summary;
        }
    }

    /** {@code recorder} as hwtool's backends are: each of them records through a sink. */
    static SinkRecorder of(Recorder recorder) {
        if (recorder instanceof SinkRecorder s) {
            return s;
        }
        throw new HwException(Cause.UNSUPPORTED, "this recorder (" + recorder.backend() + ", "
                + recorder.getClass().getName() + ") is not one of hwtool's: it records through the contract only",
                "record with Recorder.record(request, target) or record(request, target, file)");
    }
}
