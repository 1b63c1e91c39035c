package dev.hwtool.cli;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.io.TerminalText;
import dev.hwtool.report.HotSamples;
import dev.hwtool.report.RecordingKind;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** The two forms of {@code hwtool report}: a table and JSON lines. Only formatting. */
final class SampleReportOutput {

    /**
     * What the report shows: one section per event.
     */
    record Report(Path file, RecordingInfo info, HotSamples.By by, List<Section> sections, RecordingKind kind) {

        long samples() {
            return sections.stream().mapToLong(Section::samples).sum();
        }

        long period() {
            return sections.stream().mapToLong(Section::period).sum();
        }

        long exact() {
            return sections.stream().mapToLong(Section::exact).sum();
        }
    }

    /**
     * One event's samples.
     *
     * @param samples samples of the event
     * @param period  their summed period (the share's denominator; perf's "Event count")
     * @param exact   samples with an exact IP
     * @param rows    the rows shown (after --limit)
     * @param total   rows in all
     */
    record Section(String event, long samples, long period, long exact, List<HotSamples.Row> rows, int total) {
    }

    private SampleReportOutput() {
    }

    static String text(Report r) {
        StringBuilder b = new StringBuilder(RecordingFile.textHeader("report", r.file(), r.info()));
        for (Section sec : r.sections()) {
            b.append("#\n");
            // perf report: "# Samples: 4K of event 'cycles'" and "# Event count (approx.): N"
            b.append("# Samples: ").append(sec.samples()).append(" of event '")
                    .append(TerminalText.quote(sec.event())).append("'\n");
            b.append("# Event count: ").append(sec.period()).append(", ").append(sec.exact())
                    .append(" samples with an exact IP (precise)\n");
            if (sec.rows().size() < sec.total()) {
                b.append("# showing the first ").append(sec.rows().size()).append(" of ").append(sec.total())
                        .append(r.by() == HotSamples.By.IP ? " IPs\n" : " functions\n");
            }
            b.append("#\n");
            // perf report --sort dso,sym: the Shared Object column sized to its longest entry, then
            // "[level] symbol" (tools/perf/util/sort.c)
            int dsoWidth = "Shared Object".length();
            for (HotSamples.Row row : sec.rows()) {
                dsoWidth = Math.max(dsoWidth, TerminalText.quote(row.dso()).length());
            }
            b.append(String.format(Locale.ROOT, "# %8s %10s %8s  %-" + dsoWidth + "s  %s%n", "Overhead", "Samples", "Exact",
                    "Shared Object", r.by() == HotSamples.By.IP ? "IP" : "Symbol"));
            for (HotSamples.Row row : sec.rows()) {
                // names are ELF bytes from the program's files: quoted for the terminal
                b.append(String.format(Locale.ROOT, "  %7.2f%% %10d %8d  %-" + dsoWidth + "s  [%c] %s%n", row.share() * 100,
                        row.samples(), row.exact(), TerminalText.quote(row.dso()), row.level(), TerminalText.quote(row.name())));
            }
        }
        return b.toString();
    }

    /** A header line, then one line per row, each naming its event; fields in README's "hwtool report". */
    static String jsonLines(Report r) {
        Map<String, Object> head = RecordingFile.header("samples", r.file(), r.info());
        head.put("sort", r.by().cliName());
        head.put("samples", r.samples());
        head.put("period", r.period());
        head.put("exact", r.exact());
        head.put("rows_total", r.sections().stream().mapToInt(Section::total).sum());
        head.put("rows", r.sections().stream().mapToInt(s -> s.rows().size()).sum());
        List<Map<String, Object>> per = new java.util.ArrayList<>();
        for (Section sec : r.sections()) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("event", sec.event());
            m.put("samples", sec.samples());
            m.put("period", sec.period());
            m.put("exact", sec.exact());
            m.put("rows_total", sec.total());
            per.add(m);
        }
        head.put("sections", per);
        StringBuilder b = new StringBuilder(Json.line(head)).append('\n');
        for (Section sec : r.sections()) {
            for (HotSamples.Row row : sec.rows()) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("type", r.by() == HotSamples.By.IP ? "ip" : "symbol");
                m.put("event", sec.event());
                m.put("name", row.name());
                m.put("ip", RecordingFile.hex(row.ip()));
                m.put("samples", row.samples());
                m.put("period", row.period());
                m.put("share", row.share());
                m.put("exact", row.exact());
                m.put("kernel", row.kernel());
                m.put("dso", row.dso());
                m.put("level", String.valueOf(row.level()));
                m.put("pid", row.pid());
                b.append(Json.line(m)).append('\n');
            }
        }
        return b.toString();
    }
}
