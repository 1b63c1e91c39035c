package dev.hwtool.cli;

import dev.hwtool.report.ProgramImages;
import dev.hwtool.report.SymbolizerSymbols;
import dev.hwtool.io.TerminalText;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.OutputFile;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.api.HotBranch;
import dev.hwtool.report.HotBranches;
import dev.hwtool.report.LbrAnalysis;
import dev.hwtool.report.RecordingKind;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code hwtool lbr report}: the hottest branches of an LBR recording, and its folded call stacks. */
@Command(name = "report", sortOptions = false,
        description = {"The hottest branches of a branch-stack recording (hwtool lbr record, or perf record -b):",
                "every LBR entry of every sample counts once, as perf report --branch-stack --sort=from,to counts,",
                "with its mispredict rate and average cycles where the hardware reports them. Addresses are named",
                "from the ELF files the recording mapped, or on the simulator from the workload's program image",
                "rebuilt from its spec (hex where none is readable)."})
final class LbrReportCommand implements Callable<Integer> {

    static final int DEFAULT_LIMIT = 20;

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "The recording (default hwtool.data).")
    Path file;

    @Option(names = {"-s", "--sort"}, paramLabel = "count|mispred|cycles|from", defaultValue = "count",
            description = "Row order: entries (default), mispredicted entries, average cycles, source address.")
    String sort;

    @Option(names = {"-n", "--limit"}, paramLabel = "N", defaultValue = "" + DEFAULT_LIMIT,
            description = "Show the first N rows, N >= 0 (default ${DEFAULT-VALUE}; 0: all).")
    int limit;

    @Option(names = "--json", description = "JSON lines: a header object, then one object per row.")
    boolean json;

    @Option(names = "--folded", paramLabel = "OUT",
            description = "Also write the call stacks in folded format (flamegraph.pl's input) to OUT;"
                    + " needs a recording made with --filter call-stack.")
    Path folded;

    @Option(names = "--flamegraph", paramLabel = "FILE.html",
            description = "Also write those call stacks as an interactive flame graph (HTML: search, zoom, counts);"
                    + " needs a recording made with --filter call-stack.")
    Path flamegraph;

    @Override
    public Integer call() {
        HotBranches.Order order = HotBranches.Order.byName(sort).orElseThrow(() -> new UsageException(
                "unknown --sort '" + sort + "' (" + HotBranches.Order.names() + ")"));
        if (limit < 0) {
            throw new UsageException("--limit needs N >= 0 (0: all), got " + limit);
        }
        try (OutputFile foldedOut = ReportFiles.open(folded); OutputFile flameOut = ReportFiles.open(flamegraph)) {
            return report(order, foldedOut, flameOut);
        }
    }

    private Integer report(HotBranches.Order order, OutputFile foldedOut, OutputFile flameOut) {
        Path in = file != null ? file : Path.of(RecordRun.DEFAULT_FILE);
        LbrReportOutput.Report report;
        String foldedText = null;
        long stacks = 0;
        boolean fold = folded != null || flamegraph != null;
        try (PerfDataFile data = RecordingFile.open(in, "lbr report", k -> k == RecordingKind.LBR,
                "a branch-stack (LBR) recording", "hwtool lbr record -- CMD");
             SymbolizerSymbols symbols = ProgramImages.symbolsFor(data.info())) {
            if (fold && !RecordingKind.callStack(data.info())) {
                // Other filters' entries are the last branches taken, not open calls: as a flame
                // graph they would look like call stacks that were never on the stack.
                throw new HwException(Cause.BAD_INPUT, "lbr report " + (folded != null ? "--folded" : "--flamegraph")
                        + ": " + in + " was recorded with --filter "
                        + RecordingFile.filter(data.info()) + ", whose branch stacks are not call chains",
                        "record with hwtool lbr record --filter call-stack");
            }
            LbrAnalysis lbr = LbrAnalysis.read(data, symbols, order, fold);
            RecordingFile.noteSkipped("lbr report", data, spec.commandLine().getErr());
            List<HotBranch> rows = lbr.rows();
            int pairs = rows.size();
            report = new LbrReportOutput.Report(in, data.info(), RecordingFile.filter(data.info()), lbr.samples(),
                    lbr.branchSamples(), lbr.entries(), limit == 0 ? rows : rows.subList(0, Math.min(limit, pairs)),
                    pairs);
            if (folded != null) {
                foldedText = lbr.stacks().text();
            }
            stacks = lbr.stacks().lines().size();
            if (flamegraph != null) {
                FlameGraphFile.write(flameOut, "lbr report --flamegraph", data.info(), "filter "
                        + RecordingFile.filter(data.info()), lbr.stacks(), "samples", lbr.samples(),
                        "no sample in the recording (record with a smaller period, -c N, or a longer workload)");
            }
        }
        if (foldedText != null) {
            ReportFiles.write(foldedOut, foldedText);
        }
        var out = spec.commandLine().getOut();
        out.print(json ? LbrReportOutput.jsonLines(report) : LbrReportOutput.text(report));
        out.flush();
        if (foldedText != null) {
            var err = spec.commandLine().getErr();
            err.println("hwtool: lbr report: " + stacks + " call stacks written to " + TerminalText.quote(folded.toString()));
            err.flush();
        }
        if (flamegraph != null) {
            var err = spec.commandLine().getErr();
            err.println("hwtool: lbr report: flame graph of " + stacks + " call stacks written to " + TerminalText.quote(flamegraph.toString()));
            err.flush();
        }
        return ExitCodes.OK;
    }
}
