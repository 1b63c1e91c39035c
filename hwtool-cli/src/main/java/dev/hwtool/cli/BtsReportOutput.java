package dev.hwtool.cli;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.io.TerminalText;
import dev.hwtool.report.HotPath;
import dev.hwtool.report.Prediction;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** The forms of {@code hwtool bts report}: tables or a trace, as text or JSON lines. Only formatting. */
final class BtsReportOutput {

    /**
     * The tables.
     *
     * @param branches        branches in the trace
     * @param predictionKnown of them, with a prediction bit (intel_bts)
     * @param mispredicted    of those, not predicted
     * @param hot             the hottest single branches (after --limit)
     * @param distinct        distinct branches in all
     * @param pathLength      branches per path
     * @param paths           the hottest paths (after --limit)
     * @param windows         path windows counted (the paths' share denominator)
     */
    record Tables(Path file, RecordingInfo info, long branches, long predictionKnown, long mispredicted,
                  List<HotPath> hot, int distinct, int pathLength, List<HotPath> paths, long windows) {
    }

    private BtsReportOutput() {
    }

    static String text(Tables t) {
        StringBuilder b = new StringBuilder(RecordingFile.textHeader("bts report", t.file(), t.info()));
        b.append("# ").append(t.branches()).append(" branches");
        if (t.predictionKnown() > 0) {
            b.append(String.format(Locale.ROOT, ", %.2f%% not predicted", 100.0 * t.mispredicted() / t.predictionKnown()));
        }
        b.append(", ").append(t.distinct()).append(" distinct\n#\n");
        b.append("# Hot branches").append(t.hot().size() < t.distinct() ? " (first " + t.hot().size() + ")" : "")
                .append('\n');
        b.append(String.format(Locale.ROOT, "# %7s %10s  %s%n", "Share", "Count", "From -> To"));
        for (HotPath h : t.hot()) {
            b.append(String.format(Locale.ROOT, "  %6.2f%% %10d  %s%n", share(h.count(), t.branches()), h.count(),
                    hop(h.hops().getFirst())));
        }
        b.append("#\n# Hot paths of ").append(t.pathLength()).append(" consecutive branches (")
                .append(t.windows()).append(" windows)\n");
        b.append(String.format(Locale.ROOT, "# %7s %10s  %s%n", "Share", "Count", "Branches, oldest first"));
        for (HotPath p : t.paths()) {
            b.append(String.format(Locale.ROOT, "  %6.2f%% %10d  %s%n", share(p.count(), t.windows()), p.count(),
                    p.hops().stream().map(BtsReportOutput::hop).collect(Collectors.joining(" | "))));
        }
        return b.toString();
    }

    static double share(long count, long total) {
        return total == 0 ? 0 : 100.0 * count / total;
    }

    static String hop(HotPath.Hop h) {
        return TerminalText.quote(h.fromName()) + " -> " + TerminalText.quote(h.toName());
    }

    static String jsonLines(Tables t) {
        Map<String, Object> head = RecordingFile.header("bts", t.file(), t.info());
        head.put("branches", t.branches());
        head.put("prediction_known", t.predictionKnown());
        head.put("mispredicted", t.mispredicted());
        head.put("distinct", t.distinct());
        head.put("path_length", t.pathLength());
        head.put("windows", t.windows());
        StringBuilder b = new StringBuilder(Json.line(head)).append('\n');
        for (HotPath h : t.hot()) {
            Map<String, Object> m = hopJson(h.hops().getFirst());
            m.put("type", "branch");
            m.put("count", h.count());
            m.put("share", t.branches() == 0 ? 0.0 : (double) h.count() / t.branches());
            b.append(Json.line(reorderType(m))).append('\n');
        }
        for (HotPath p : t.paths()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "path");
            m.put("count", p.count());
            m.put("share", t.windows() == 0 ? 0.0 : (double) p.count() / t.windows());
            List<Object> hops = new ArrayList<>();
            p.hops().forEach(h -> hops.add(hopJson(h)));
            m.put("branches", hops);
            b.append(Json.line(m)).append('\n');
        }
        return b.toString();
    }

    /** "type" first, as in every other line. */
    private static Map<String, Object> reorderType(Map<String, Object> m) {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("type", m.remove("type"));
        out.putAll(m);
        return out;
    }

    static Map<String, Object> hopJson(HotPath.Hop h) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("from", RecordingFile.hex(h.from()));
        m.put("to", RecordingFile.hex(h.to()));
        m.put("from_symbol", h.fromName());
        m.put("to_symbol", h.toName());
        return m;
    }

    /** The trace's header: what was recorded, before the branches stream out. */
    static String traceHeader(Path file, RecordingInfo info, boolean json) {
        if (json) {
            Map<String, Object> head = RecordingFile.header("bts-trace", file, info);
            return Json.line(head) + "\n";
        }
        return RecordingFile.textHeader("bts report --trace", file, info)
                + String.format(Locale.ROOT, "# %9s %7s %7s  %-4s %s%n", "Index", "PID", "TID", "Pred", "From -> To");
    }

    /** One branch of the trace. */
    static String traceLine(long index, int pid, int tid, long from, long to, String fromName, String toName,
                            Prediction p, boolean json) {
        if (json) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("type", "trace");
            m.put("index", index);
            m.put("pid", pid);
            m.put("tid", tid);
            m.put("from", RecordingFile.hex(from));
            m.put("to", RecordingFile.hex(to));
            m.put("from_symbol", fromName);
            m.put("to_symbol", toName);
            m.put("predicted", switch (p) {
                case PREDICTED -> Boolean.TRUE;
                case MISPREDICTED -> Boolean.FALSE;
                case UNKNOWN -> null;
            });
            return Json.line(m) + "\n";
        }
        String pred = switch (p) {
            case PREDICTED -> "P";
            case MISPREDICTED -> "M";
            case UNKNOWN -> "-";
        };
        return String.format(Locale.ROOT, "  %9d %7d %7d  %-4s %s -> %s%n", index, pid, tid, pred, TerminalText.quote(fromName),
                TerminalText.quote(toName));
    }
}
