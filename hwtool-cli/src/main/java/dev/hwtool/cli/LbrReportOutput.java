package dev.hwtool.cli;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.io.TerminalText;
import dev.hwtool.api.HotBranch;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The two forms of {@code hwtool lbr report}: a table and JSON lines. Only formatting. */
final class LbrReportOutput {

    /**
     * What the report shows.
     *
     * @param samples       samples in the file
     * @param branchSamples of them, samples with a branch stack
     * @param entries       LBR entries counted (the share's denominator)
     * @param rows          the rows shown (after --limit)
     * @param pairs         distinct (from, to) pairs in all
     */
    record Report(Path file, RecordingInfo info, String filter, long samples, long branchSamples, long entries,
                  List<HotBranch> rows, int pairs) {
    }

    private LbrReportOutput() {
    }

    static String text(Report r) {
        StringBuilder b = new StringBuilder(RecordingFile.textHeader("lbr report", r.file(), r.info()));
        b.append("# filter:  ").append(r.filter()).append('\n');
        b.append("# ").append(r.samples()).append(" samples, ").append(r.branchSamples()).append(" with a branch stack, ")
                .append(r.entries()).append(" branch entries (each entry counted once, as perf report --branch-stack)\n");
        if (r.rows().size() < r.pairs()) {
            b.append("# showing the first ").append(r.rows().size()).append(" of ").append(r.pairs()).append(" branches\n");
        }
        b.append("#\n");
        b.append(String.format(Locale.ROOT, "# %7s %10s %8s %8s  %-9s %s%n", "Share", "Count", "Mispred", "Cycles",
                "Type", "From -> To"));
        for (HotBranch h : r.rows()) {
            b.append(String.format(Locale.ROOT, "  %6.2f%% %10d %8s %8s  %-9s %s -> %s%n", share(h, r) * 100, h.count(),
                    h.mispredictRate().isPresent() ? String.format(Locale.ROOT, "%.2f%%", h.mispredictRate().getAsDouble() * 100) : "-",
                    h.averageCycles().isPresent() ? String.format(Locale.ROOT, "%.1f", h.averageCycles().getAsDouble()) : "-",
                    h.type(), TerminalText.quote(h.fromName()), TerminalText.quote(h.toName())));
        }
        return b.toString();
    }

    static double share(HotBranch h, Report r) {
        return r.entries() == 0 ? 0 : (double) h.count() / r.entries();
    }

    /** A header line, then one line per row; fields in README's "JSON lines of hwtool lbr report". */
    static String jsonLines(Report r) {
        Map<String, Object> head = RecordingFile.header("lbr", r.file(), r.info());
        head.put("filter", r.filter());
        head.put("samples", r.samples());
        head.put("branch_samples", r.branchSamples());
        head.put("entries", r.entries());
        head.put("branches", r.pairs());
        head.put("rows", r.rows().size());
        StringBuilder b = new StringBuilder(Json.line(head)).append('\n');
        for (HotBranch h : r.rows()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "branch");
            m.put("from", RecordingFile.hex(h.from()));
            m.put("to", RecordingFile.hex(h.to()));
            m.put("from_symbol", h.fromName());
            m.put("to_symbol", h.toName());
            m.put("branch_type", h.type());
            m.put("count", h.count());
            m.put("share", share(h, r));
            m.put("mispredicted", h.mispredicted());
            m.put("mispredict_rate", h.mispredictRate().isPresent() ? h.mispredictRate().getAsDouble() : null);
            m.put("avg_cycles", h.averageCycles().isPresent() ? h.averageCycles().getAsDouble() : null);
            m.put("pid", h.pid());
            b.append(Json.line(m)).append('\n');
        }
        return b.toString();
    }
}
