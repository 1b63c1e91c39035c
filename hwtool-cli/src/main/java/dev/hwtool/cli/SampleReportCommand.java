package dev.hwtool.cli;

import dev.hwtool.report.ProgramImages;
import dev.hwtool.report.SymbolizerSymbols;
import dev.hwtool.io.TerminalText;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.io.OutputFile;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.report.HotSamples;
import dev.hwtool.report.RecordingKind;
import dev.hwtool.report.SampleFolder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code hwtool report}: where the samples of a recording fell, like {@code perf report}: one section per event. */
@Command(name = "report", sortOptions = false,
        description = {"Where the samples of a recording fell (hwtool record, or perf record -e EVENT), like perf report:",
                "each row's overhead is its share of the sampled period, with its sample count and how many samples",
                "had an exact IP (precise sampling). Rows are functions (default) or single IPs (--sort ip), named",
                "from the ELF files the recording mapped. With several events, one section per event (--event picks one).",
                "BTS recordings are read by 'hwtool bts report'."})
final class SampleReportCommand implements Callable<Integer> {

    static final int DEFAULT_LIMIT = 20;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "The recording (default hwtool.data).")
    Path file;

    @Option(names = {"-s", "--sort"}, paramLabel = "symbol|ip", defaultValue = "symbol",
            description = "Rows per function (default) or per sampled IP.")
    String sort;

    @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "" + DEFAULT_LIMIT,
            description = "Show the first N rows, N >= 0 (default ${DEFAULT-VALUE}; 0: all).")
    int limit;

    @Option(names = "--json", description = "JSON lines: a header object, then one object per row.")
    boolean json;

    @Option(names = "--flamegraph", paramLabel = "FILE.html",
            description = {"Also write an interactive flame graph (HTML: search, zoom, counts) of the samples: their LBR"
                    + " call stacks when recorded with hwtool lbr record --filter call-stack, else one frame per sample (the function of"
                    + " its IP, a flat profile)."})
    Path flamegraph;

    @Option(names = "--event", paramLabel = "NAME",
            description = "Only the samples of this event (a name as the header's events list gives it);"
                    + " by default one section per event that has samples, as perf report gives them.")
    String event;

    @Override
    public Integer call() {
        HotSamples.By by = HotSamples.By.byName(sort).orElseThrow(() -> new UsageException("unknown --sort '" + sort
                + "' (symbol|ip)"));
        if (limit < 0) {
            throw new UsageException("--limit needs N >= 0 (0: all), got " + limit);
        }
        Path in = file != null ? file : Path.of(RecordRun.DEFAULT_FILE);
        SampleReportOutput.Report report;
        long stacks = 0;
        try (OutputFile flameOut = ReportFiles.open(flamegraph);
             PerfDataFile data = RecordingFile.open(in, "report", k -> !k.bts(), "a sampling recording",
                "hwtool record -e EVENT -- CMD");
             SymbolizerSymbols symbols = ProgramImages.symbolsFor(data.info())) {
            List<RecordingInfo.Event> events = data.info().events();
            boolean[] wanted = RecordingFile.pickEvents("report", in, data.info(), event);
            HotSamples[] hot = new HotSamples[events.size()];
            for (int i = 0; i < hot.length; i++) {
                hot[i] = new HotSamples();
            }
            SampleFolder folder = new SampleFolder(symbols, RecordingKind.callStack(data.info()));
            long[] all = new long[1];
            RecordingFile.forEachSample(data, wanted, symbols, (c, e) -> {
                PerfRecord.Sample s = (PerfRecord.Sample) c.toRecord();
                hot[e].add(s);
                all[0]++;
                if (flamegraph != null) {
                    folder.add(s);
                }
            });
            List<SampleReportOutput.Section> sections = new ArrayList<>();
            for (int i = 0; i < hot.length; i++) {
                // perf report shows the events that have samples; with none at all, the first wanted one
                if (wanted[i] && (hot[i].samples() > 0 || (all[0] == 0 && sections.isEmpty()))) {
                    List<HotSamples.Row> rows = hot[i].rows(symbols, by);
                    sections.add(new SampleReportOutput.Section(events.get(i).name(), hot[i].samples(),
                            hot[i].period(), hot[i].exact(),
                            limit == 0 ? rows : rows.subList(0, Math.min(limit, rows.size())), rows.size()));
                }
            }
            report = new SampleReportOutput.Report(in, data.info(), by, sections, RecordingKind.of(data.info()));
            RecordingFile.noteSkipped("report", data, spec.commandLine().getErr());
            if (flamegraph != null) {
                stacks = folder.stacks().lines().size();
                FlameGraphFile.write(flameOut, "report --flamegraph", data.info(), folder.callStacks()
                        ? "LBR call stacks" : "flat, one frame per sample (for call stacks: hwtool lbr record --filter call-stack)",
                        folder.stacks(), "samples", all[0],
                        "no sample in the recording (record with a smaller period, -c N, or a longer workload)");
            }
        }
        var out = spec.commandLine().getOut();
        out.print(json ? SampleReportOutput.jsonLines(report) : SampleReportOutput.text(report));
        out.flush();
        if (flamegraph != null) {
            var err = spec.commandLine().getErr();
            err.println("hwtool: report: flame graph of " + stacks + " stacks written to " + TerminalText.quote(flamegraph.toString()));
            err.flush();
        }
        return ExitCodes.OK;
    }
}
