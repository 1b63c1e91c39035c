package dev.hwtool.cli;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.io.OutputFile;
import dev.hwtool.report.FlameGraphHtml;
import dev.hwtool.report.FlameGraphTitle;
import dev.hwtool.report.FoldedStacks;

import java.nio.file.Path;

/**
 * {@code --flamegraph FILE.html} of the reports: the stacks {@code --folded} writes, as
 * async-profiler's interactive flame graph ({@link FlameGraphHtml}), titled with what was
 * recorded ({@link FlameGraphTitle}), and written as {@code --folded} is ({@link ReportFiles}: the
 * output policy, the file opened and checked before the recording is read).
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
        ReportFiles.write(out, FlameGraphHtml.render(stacks, FlameGraphTitle.of(info, detail, stacks, unit, count, empty)));
    }
}
