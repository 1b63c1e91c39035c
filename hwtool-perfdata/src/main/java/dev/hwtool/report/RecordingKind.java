package dev.hwtool.report;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;

import java.util.stream.Collectors;

/**
 * What a recording holds, read from the attrs it was made with, so that a report refuses a recording it cannot
 * read instead of printing an empty table.
 */
public enum RecordingKind {
    /** Samples carrying a branch stack (PERF_SAMPLE_BRANCH_STACK): {@code perf record -b}, hwtool lbr record. */
    LBR,
    /** intel_bts AUX data: 24-byte BTS records in PERF_RECORD_AUXTRACE (tools/perf/util/intel-bts.c). */
    BTS_AUX,
    /**
     * The branches event at sample_period 1 with ip and addr: one sample per taken branch,
     * ip = from, addr = to (arch/x86/events/intel/ds.c, intel_pmu_drain_bts_buffer); also how
     * the simulator records BTS.
     */
    BTS_SAMPLES,
    /** Anything else, e.g. {@code perf record -e cpu-clock}. */
    OTHER;

    /** The AUX PMU name of intel_bts (/sys/bus/event_source/devices/intel_bts). */
    public static final String INTEL_BTS = "intel_bts";

    public static RecordingKind of(RecordingInfo info) {
        if (info.auxPmu().filter(p -> p.name().equals(INTEL_BTS)).isPresent()) {
            return BTS_AUX;
        }
        // any event: perf inject --itrace and perf record -e A,B -b put the branch stacks on
        // whichever event asks for them
        if (info.events().stream().anyMatch(e -> branchStack(e.attr()))) {
            return LBR;
        }
        PerfEventAttr attr = info.events().getFirst().attr();
        if (attr.type() == PerfType.HARDWARE && attr.config() == PerfCount.HW_BRANCH_INSTRUCTIONS
                && !attr.has(PerfAttrFlag.FREQ) && attr.samplePeriod() == 1
                && (attr.sampleType() & (PerfSample.IP | PerfSample.ADDR)) == (PerfSample.IP | PerfSample.ADDR)) {
            return BTS_SAMPLES;
        }
        return OTHER;
    }

    /** Whether the event's samples carry a branch stack (PERF_SAMPLE_BRANCH_STACK). */
    public static boolean branchStack(PerfEventAttr attr) {
        return (attr.sampleType() & PerfSample.BRANCH_STACK) != 0;
    }

    /** The first event whose samples carry branch stacks, else the first event. */
    public static PerfEventAttr branchAttr(RecordingInfo info) {
        return info.events().stream().map(RecordingInfo.Event::attr).filter(RecordingKind::branchStack).findFirst()
                .orElse(info.events().getFirst().attr());
    }

    public boolean bts() {
        return this == BTS_AUX || this == BTS_SAMPLES;
    }

    /** Whether an LBR recording was made in call-stack mode (PERF_SAMPLE_BRANCH_CALL_STACK). */
    public static boolean callStack(RecordingInfo info) {
        return (branchAttr(info).branchSampleType() & PerfBranchSample.CALL_STACK) != 0;
    }

    /** "cycles:u, branches:u": the events' names, for messages. */
    public static String events(RecordingInfo info) {
        return info.events().stream().map(RecordingInfo.Event::name).collect(Collectors.joining(", "));
    }
}
