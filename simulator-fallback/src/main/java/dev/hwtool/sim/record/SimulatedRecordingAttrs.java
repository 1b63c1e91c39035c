package dev.hwtool.sim.record;

import dev.hwtool.api.RecordRequest;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.linux.perf.RecordingAttrs;

/**
 * The perf_event_attr a request would be opened with on hardware: exactly
 * {@link RecordingAttrs}'s, the hardware recorder's own, so that a simulated recording's header
 * says what a real one would and one report reads both. Only the BTS choice differs by
 * construction: the simulated kernel has no intel_bts PMU, so BTS is always the {@code branches}
 * event with period 1 (arch/x86/events/perf_event.h, intel_pmu_has_bts_period).
 */
public final class SimulatedRecordingAttrs {

    private SimulatedRecordingAttrs() {
    }

    public static PerfEventAttr of(RecordRequest request) {
        return switch (request) {
            case RecordRequest.Lbr l -> RecordingAttrs.lbr(l);
            case RecordRequest.Bts b -> RecordingAttrs.btsBranches(b.privilege(), null);
            case RecordRequest.Sampling s -> RecordingAttrs.sampling(s);
        };
    }

    /** perf's event name with the privilege modifier: "branches:u", "cycles:k", "instructions". */
    public static String name(RecordRequest request) {
        String base = switch (request) {
            case RecordRequest.Lbr l -> RecordingAttrs.eventName(PerfType.HARDWARE, RecordingAttrs.lbrEventConfig(l));
            case RecordRequest.Bts b -> RecordingAttrs.eventName(PerfType.HARDWARE, PerfCount.HW_BRANCH_INSTRUCTIONS);
            case RecordRequest.Sampling s -> RecordingAttrs.eventName(s.type(), s.config());
        };
        int precise = request instanceof RecordRequest.Sampling s ? s.precise() : 0;
        return base + RecordingAttrs.modifiers(request.privilege(), precise);
    }
}
