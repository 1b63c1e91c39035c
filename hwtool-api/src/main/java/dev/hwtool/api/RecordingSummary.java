package dev.hwtool.api;

/**
 * How a recording went.
 *
 * @param records      records passed to the sink
 * @param samples      PERF_RECORD_SAMPLE among them
 * @param lost         events the kernel dropped, from PERF_RECORD_LOST (ring full)
 * @param lostSamples  samples dropped, from PERF_RECORD_LOST_SAMPLES
 * @param auxBytes     AUX bytes passed to the sink
 * @param auxTruncated whether any PERF_RECORD_AUX had the TRUNCATED flag (the AUX buffer filled)
 * @param exitStatus   the target's exit status (128+N for signal N; 0 for a simulator workload, 130 when a
 *                     stop request ended it early, as SIGINT would)
 * @param elapsedNs    wall time of the target's run
 */
public record RecordingSummary(long records, long samples, long lost, long lostSamples, long auxBytes,
                               boolean auxTruncated, int exitStatus, long elapsedNs) {
}
