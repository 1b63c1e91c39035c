package dev.hwtool.sim.record;

import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.perf.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfEventAttr;
import dev.hwtool.arch.perf.PerfSample;
import dev.hwtool.arch.perf.PerfType;

/**
 * The perf_event_attr a request would be opened with on hardware, built the way
 * {@code perf record} builds it, so that a simulated recording's header says what a real one
 * would. The simulator's records follow these attrs exactly (one file format, one report).
 *
 * <p>Common to all: flags DISABLED, COMM, COMM_EXEC, TASK, ENABLE_ON_EXEC, SAMPLE_ID_ALL,
 * EXCLUDE_GUEST, and EXCLUDE_KERNEL|EXCLUDE_HV (privilege user) or EXCLUDE_USER|EXCLUDE_HV
 * (privilege kernel); sample_period fixed (no FREQ).
 * <ul>
 * <li>Lbr: HARDWARE/branches (cycles when period is 1, since branches with period 1 is BTS),
 *     sample_type IP|TID|TIME|BRANCH_STACK, branch_sample_type = filter | USER/KERNEL | HW_INDEX |
 *     TYPE_SAVE (the report shows branch types; arch LBR saves them anyway);</li>
 * <li>Bts: HARDWARE/branches, period 1, sample_type IP|TID|TIME|ADDR|PERIOD;</li>
 * <li>Sampling: the request's type/config/period, sample_type IP|TID|TIME|CPU|PERIOD.</li>
 * </ul>
 */
public final class SimulatedRecordingAttrs {


    public static final long LBR_SAMPLE_TYPE = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.BRANCH_STACK;
    public static final long BTS_SAMPLE_TYPE = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.ADDR
            | PerfSample.PERIOD;
    public static final long SAMPLING_SAMPLE_TYPE = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.CPU
            | PerfSample.PERIOD;

    private SimulatedRecordingAttrs() {
    }

    /** The hardware event an LBR request samples on: branches, or cycles for period 1. */
    public static long lbrEventConfig(RecordRequest.Lbr r) {
        return r.period() == 1 ? PerfCount.HW_CPU_CYCLES : PerfCount.HW_BRANCH_INSTRUCTIONS;
    }

    /** branch_sample_type of an LBR request. */
    public static long branchSampleType(RecordRequest.Lbr r) {
        return r.filter().branchSampleType() | (r.privilege().user() ? PerfBranchSample.USER : 0)
                | (r.privilege().kernel() ? PerfBranchSample.KERNEL : 0) | PerfBranchSample.HW_INDEX
                | PerfBranchSample.TYPE_SAVE;
    }

    public static PerfEventAttr of(RecordRequest request) {
        return switch (request) {
            case RecordRequest.Lbr l -> base(l.privilege()).type(PerfType.HARDWARE).config(lbrEventConfig(l))
                    .samplePeriod(l.period()).sampleType(LBR_SAMPLE_TYPE).branchSampleType(branchSampleType(l)).build();
            case RecordRequest.Bts b -> base(b.privilege()).type(PerfType.HARDWARE)
                    .config(PerfCount.HW_BRANCH_INSTRUCTIONS).samplePeriod(1).sampleType(BTS_SAMPLE_TYPE).build();
            case RecordRequest.Sampling s -> base(s.privilege()).type(s.type()).config(s.config())
                    .samplePeriod(s.period()).sampleType(SAMPLING_SAMPLE_TYPE).build();
        };
    }

    /** perf's event name with the privilege modifier: "branches:u", "cycles:k", "instructions". */
    public static String name(RecordRequest request) {
        String base = switch (request) {
            case RecordRequest.Lbr l -> EventCode.hardwareName(lbrEventConfig(l));
            case RecordRequest.Bts b -> "branches";
            case RecordRequest.Sampling s -> s.type() == PerfType.HARDWARE ? EventCode.hardwareName(s.config())
                    : s.type() == PerfType.RAW ? "r" + Long.toHexString(s.config())
                    : "type" + s.type() + "/config 0x" + Long.toHexString(s.config());
        };
        return base + modifier(request.privilege());
    }

    static String modifier(Privilege p) {
        return switch (p) {
            case USER -> ":u";
            case KERNEL -> ":k";
            case ALL -> "";
        };
    }

    private static PerfEventAttr.Builder base(Privilege p) {
        PerfEventAttr.Builder b = PerfEventAttr.builder().flag(PerfAttrFlag.DISABLED, PerfAttrFlag.COMM,
                PerfAttrFlag.COMM_EXEC, PerfAttrFlag.TASK, PerfAttrFlag.ENABLE_ON_EXEC, PerfAttrFlag.SAMPLE_ID_ALL,
                PerfAttrFlag.EXCLUDE_GUEST);
        if (!p.kernel()) {
            b.flag(PerfAttrFlag.EXCLUDE_KERNEL, PerfAttrFlag.EXCLUDE_HV);
        }
        if (!p.user()) {
            b.flag(PerfAttrFlag.EXCLUDE_USER, PerfAttrFlag.EXCLUDE_HV);
        }
        return b;
    }
}
