package dev.hwtool.api;

/**
 * Records branches or samples of one run of a target, the same way on every backend: the
 * hardware backend drives perf_event_open on a command's process, the simulator runs a workload
 * on a simulated CPU whose interrupt handler plays the Linux driver. Both hand the
 * {@link RecordSink} the same kernel-format perf records (perf_event_header first), so one file
 * format and one report serve both.
 *
 * <p>Contract (the recorder contract suite holds every backend to it):
 * <ul>
 *   <li>{@link RecordSink#begin} is called exactly once, before any record, with the attrs
 *       actually opened (after any fallback, e.g. BTS through the {@code branches} event);</li>
 *   <li>records reach the sink in the order the kernel (or simulator) wrote them, one CPU's
 *       ring at a time (rings are not merged by time: perf record does not, perf report sorts); AUX data
 *       ({@link RecordSink#auxtrace}) follows the PERF_RECORD_AUX record that announced it;</li>
 *   <li>a request the backend cannot serve throws {@link HwException} with its {@link Cause}
 *       and remedy <em>before</em> the target runs and before {@code begin};</li>
 *   <li>a target of the wrong kind ({@link RecordTarget.Workload} on hardware,
 *       {@link RecordTarget.Command} on the simulator) is {@link Cause#BAD_INPUT}.</li>
 * </ul>
 */
public interface Recorder {

    /** The backend's name as reports show it: "hardware", or "simulated (profile NAME)". */
    String backend();

    /**
     * Runs {@code target} once with {@code request} recording, passing every record to {@code sink}.
     *
     * @return what was recorded and how the target ended
     * @throws HwException when the request cannot be recorded here, or the target cannot start
     */
    RecordingSummary record(RecordRequest request, RecordTarget target, RecordSink sink);

    /**
     * Runs {@code target} once with {@code request} recording, and keeps the recording in
     * memory for analysis ({@link Recording}).
     *
     * @throws HwException as {@link #record(RecordRequest, RecordTarget, RecordSink)} does; and
     *                     UNSUPPORTED when the recording outgrows memory (record to a file)
     */
    Recording record(RecordRequest request, RecordTarget target);
}
