package dev.hwtool.api;

/**
 * Records branches or samples of one run of a target, the same way on every backend: the
 * hardware backend drives perf_event_open on a command's process, the simulator runs a workload
 * on a simulated CPU whose interrupt handler plays the Linux driver. Both produce the same
 * kernel-format perf records, kept as perf.data (in memory, or in a file), so one file format and
 * one report serve both.
 *
 * <p>Contract (the recorder contract suite holds every backend to it):
 * <ul>
 *   <li>a request the backend cannot serve throws {@link HwException} with its {@link Cause}
 *       and remedy <em>before</em> the target runs, and before a file is written;</li>
 *   <li>a target of the wrong kind ({@link RecordTarget.Workload} on hardware,
 *       {@link RecordTarget.Command} on the simulator) is {@link Cause#BAD_INPUT}.</li>
 * </ul>
 */
public interface Recorder {

    /** The backend's name as reports show it: "hardware", or "simulated (profile NAME)". */
    String backend();

    /**
     * Runs {@code target} once with {@code request} recording, and keeps the recording in
     * memory for analysis ({@link Recording}).
     *
     * @throws HwException when the request cannot be recorded here, or the target cannot start;
     *                     UNSUPPORTED when the recording outgrows memory (record to a file)
     */
    Recording record(RecordRequest request, RecordTarget target);

    /**
     * Runs {@code target} once with {@code request} recording into the perf.data file
     * {@code perfData}, as {@code hwtool lbr record -o FILE} does: for recordings too large for
     * memory, or to read with perf. The file is checked before the target runs and written whole
     * or not at all; an existing one is kept as FILE.old (perf record's convention).
     *
     * @return what was recorded and how the target ended
     * @throws HwException as {@link #record(RecordRequest, RecordTarget)} does; OS_ERROR when the
     *                     file cannot be written
     */
    RecordingSummary record(RecordRequest request, RecordTarget target, java.nio.file.Path perfData);
}
