package dev.hwtool.cli;

import dev.hwtool.api.RecordingInfo;
import dev.hwtool.arch.perf.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfEventAttr;
import dev.hwtool.io.OutputFile;
import dev.hwtool.report.FlameGraphHtml;
import dev.hwtool.report.FoldedStacks;
import dev.hwtool.report.RecordingKind;

import java.nio.file.Path;
import java.util.Locale;

/**
 * {@code --flamegraph FILE.html} of the reports: the stacks {@code --folded} writes, as
 * async-profiler's interactive flame graph ({@link FlameGraphHtml}), titled with what was
 * recorded, and written as {@code --folded} is ({@link ReportFiles}: the output policy, the file
 * opened and checked before the recording is read).
 */
final class FlameGraphFile {

    private FlameGraphFile() {
    }

    /**
     * Writes the page.
     *
     * @param what   "lbr report --flamegraph", for messages
     * @param detail what the report adds after the events, e.g. "filter call-stack"; may be empty
     * @param unit   what a stack's count counts: "samples", "branches"
     * @param count  how many of them the recording held (0: the page says there is nothing to draw)
     * @param empty  why a recording may give no stack, and the remedy, for the empty page's note
     */
    static void write(OutputFile out, String what, RecordingInfo info, String detail, FoldedStacks stacks, String unit,
                      long count, String empty) {
        ReportFiles.write(out, FlameGraphHtml.render(stacks, title(info, detail, stacks, unit, count, empty)));
    }

    /**
     * "SIMULATED (profile skylake): calltree seed=1 · branches:u, filter call-stack, period 13 · 961 samples":
     * a simulated recording says so first, as every hwtool report does.
     */
    static String title(RecordingInfo info, String detail, FoldedStacks stacks, String unit, long count, String empty) {
        StringBuilder b = new StringBuilder();
        String backend = info.backend();
        if (RecordingFile.simulated(info)) {
            b.append("SIMULATED").append(backend.substring("simulated".length())).append(", not this machine: ");
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
