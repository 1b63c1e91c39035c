package dev.hwtool.report;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.abi.PerfEventAttr;

import java.util.Locale;

/**
 * The heading of a flame graph page ({@link FlameGraphHtml}): what was recorded, on what, and how
 * much, so that a page found later says what it shows. One for the reports' {@code --flamegraph}
 * and an in-memory recording's page, so the same recording's pages say the same. Apart from
 * {@link FlameGraphHtml}, which needs async-profiler's converter: a title needs none.
 */
public final class FlameGraphTitle {

    private FlameGraphTitle() {
    }

    /**
     * "SIMULATED (profile skylake), not this machine: calltree seed=1 · branches:u, filter call-stack, period 13 · 961 samples":
     * a simulated recording says so first, as every hwtool report does.
     *
     * @param detail what the report adds after the events, e.g. "filter call-stack"; may be empty
     * @param unit   what a stack's count counts: "samples", "branches"
     * @param count  how many of them the recording held
     * @param empty  why a recording may give no stack, and the remedy, said when {@code stacks} has none
     */
    public static String of(RecordingInfo info, String detail, FoldedStacks stacks, String unit, long count,
                            String empty) {
        StringBuilder b = new StringBuilder();
        String backend = info.backend();
        // the simulator's backend name, "simulated (profile NAME)"
        if (info.simulated()) {
            b.append("SIMULATED").append(backend.substring(RecordingInfo.SIMULATED.length())).append(", not this machine: ");
        } else {
            b.append(backend).append(": ");
        }
        b.append(info.target()).append(" · ").append(RecordingKind.events(info));
        if (!detail.isEmpty()) {
            b.append(", ").append(detail);
        }
        PerfEventAttr attr = info.events().getFirst().attr();
        if (attr.samplePeriod() != 0) {
            b.append(", ").append(rate(attr));
        }
        b.append(" · ").append(count).append(' ').append(unit);
        if (stacks.lines().isEmpty()) {
            b.append(" · nothing to draw: ").append(empty);
        }
        return b.toString();
    }

    /**
     * "period 13" or "frequency 4000 Hz" (perf_event_attr.sample_period / sample_freq with attr.freq);
     * an intel_bts trace has neither (its branches come through the AUX area, not samples).
     */
    static String rate(PerfEventAttr attr) {
        return String.format(Locale.ROOT, attr.has(PerfAttrFlag.FREQ) ? "frequency %d Hz" : "period %d",
                attr.samplePeriod());
    }
}
