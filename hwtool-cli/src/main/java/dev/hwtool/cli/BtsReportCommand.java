package dev.hwtool.cli;

import dev.hwtool.report.ProgramImages;
import dev.hwtool.report.SymbolizerSymbols;
import dev.hwtool.io.TerminalText;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.OutputFile;
import dev.hwtool.arch.perf.abi.PerfParseException;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.record.RecordVisitor;
import dev.hwtool.report.BranchSink;
import dev.hwtool.report.BtsTrace;
import dev.hwtool.report.HotPaths;
import dev.hwtool.report.RecordingKind;
import dev.hwtool.report.TraceFolder;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;

/** {@code hwtool bts report}: a branch trace's hottest branches and paths, the trace itself, its folded stacks. */
@Command(name = "report", sortOptions = false,
        description = {"The hottest branches and the hottest paths (runs of N consecutive branches of one thread) of",
                "a branch-trace recording (hwtool bts record, or perf record -e intel_bts//), or with --trace every",
                "branch in order. Addresses are named from the ELF files the recording mapped, or on the simulator",
                "from the workload's program image rebuilt from its spec (hex where none is readable)."})
final class BtsReportCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "0..1", paramLabel = "FILE", description = "The recording (default hwtool.data).")
    Path file;

    @Option(names = "--trace", description = "Print every branch in order (index, pid, tid, predicted, from -> to)"
            + " instead of the tables.")
    boolean trace;

    @Option(names = {"-n", "--limit"}, paramLabel = "N",
            description = "Show the first N rows of each table (default 20), or of the trace (default all); N >= 0, 0: all.")
    Integer limit;

    @Option(names = "--paths", paramLabel = "N", defaultValue = "" + HotPaths.DEFAULT_LENGTH,
            description = "Branches per hot path, 1 to " + HotPaths.MAX_LENGTH + " (default ${DEFAULT-VALUE}).")
    int pathLength;

    @Option(names = "--json", description = "JSON lines: a header object, then one object per row or branch.")
    boolean json;

    @Option(names = "--folded", paramLabel = "OUT",
            description = "Also write the call stacks in folded format to OUT: a shadow stack of the trace's calls and"
                    + " returns, told apart by decoding each branch's instruction from the program's ELF file.")
    Path folded;

    @Option(names = "--flamegraph", paramLabel = "FILE.html",
            description = "Also write those call stacks as an interactive flame graph (HTML: search, zoom, counts);"
                    + " each branch counts once, in the stack it was taken in.")
    Path flamegraph;

    @Override
    public Integer call() {
        if (limit != null && limit < 0) {
            throw new UsageException("--limit needs N >= 0 (0: all), got " + limit);
        }
        if (pathLength < 1 || pathLength > HotPaths.MAX_LENGTH) {
            throw new UsageException("--paths needs N from 1 to " + HotPaths.MAX_LENGTH + ", got " + pathLength);
        }
        try (OutputFile foldedOut = ReportFiles.open(folded); OutputFile flameOut = ReportFiles.open(flamegraph)) {
            return report(foldedOut, flameOut);
        }
    }

    private Integer report(OutputFile foldedOut, OutputFile flameOut) {
        int rows = limit == null ? (trace ? 0 : LbrReportCommand.DEFAULT_LIMIT) : limit;
        long shown = rows == 0 ? Long.MAX_VALUE : rows;
        Path in = file != null ? file : Path.of(RecordRun.DEFAULT_FILE);
        PrintWriter out = spec.commandLine().getOut();
        try (PerfDataFile data = RecordingFile.open(in, "bts report", RecordingKind::bts, "a branch-trace (BTS) recording",
                "hwtool bts record -- CMD");
             SymbolizerSymbols symbols = ProgramImages.symbolsFor(data.info())) {
            boolean fold = folded != null || flamegraph != null;
            if (fold && data.info().simulated() && !symbols.hasImage()) {
                throw unclassifiable(folded != null ? "--folded" : "--flamegraph", in,
                        "its simulated workload (" + data.info().target() + ") has no program code to decode");
            }
            List<BranchSink> sinks = new ArrayList<>();
            HotPaths hot = new HotPaths(1);
            HotPaths paths = new HotPaths(pathLength);
            TraceFolder folder = new TraceFolder(symbols, symbols);
            if (trace) {
                // The trace prints as it is read, so read the whole file once first: a corrupt record
                // anywhere fails before anything is on stdout (README: nothing on stdout when a command fails).
                try (SymbolizerSymbols none = new SymbolizerSymbols()) {
                    data.forEach(new Reader(new BtsTrace((pid, tid, from, to, p) -> { }), none, RecordingKind.of(data.info())));
                }
                out.print(BtsReportOutput.traceHeader(in, data.info(), json));
                long[] index = {0};
                sinks.add((pid, tid, from, to, p) -> {
                    if (index[0] < shown) {
                        out.print(BtsReportOutput.traceLine(index[0], pid, tid, from, to, symbols.describe(pid, from),
                                symbols.describe(pid, to), p, json));
                    }
                    index[0]++;
                });
            } else {
                sinks.add(hot);
                sinks.add(paths);
            }
            if (fold) {
                sinks.add(folder);
            }
            BtsTrace bts = new BtsTrace(BranchSink.all(sinks.toArray(BranchSink[]::new)));
            data.forEach(new Reader(bts, symbols, RecordingKind.of(data.info())));
            if (fold && bts.branches() > 0 && folder.unclassified() == bts.branches()) {
                throw unclassifiable(folded != null ? "--folded" : "--flamegraph", in,
                        "no branch's instruction could be read from a mapped ELF file");
            }
            if (folded != null) {
                ReportFiles.write(foldedOut, folder.stacks().text());
            }
            if (flamegraph != null) {
                FlameGraphFile.write(flameOut, "bts report --flamegraph", data.info(), "calls and returns decoded",
                        folder.stacks(), "branches", bts.branches(), "no branch in the recording");
            }
            if (!trace) {
                int n = rows == 0 ? Integer.MAX_VALUE : rows;
                BtsReportOutput.Tables t = new BtsReportOutput.Tables(in, data.info(), bts.branches(),
                        bts.predictionKnown(), bts.mispredicted(), hot.top(symbols, n), hot.distinct(), pathLength,
                        paths.top(symbols, n), paths.paths());
                out.print(json ? BtsReportOutput.jsonLines(t) : BtsReportOutput.text(t));
            }
            out.flush();
            if (folded != null) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("hwtool: bts report: " + folder.stacks().lines().size() + " call stacks (" + folder.calls()
                        + " calls, " + folder.returns() + " returns, " + folder.unclassified()
                        + " branches not decodable) written to " + TerminalText.quote(folded.toString()));
                err.flush();
            }
            if (flamegraph != null) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("hwtool: bts report: flame graph of " + folder.stacks().lines().size() + " call stacks ("
                        + folder.unclassified() + " branches not decodable) written to " + TerminalText.quote(flamegraph.toString()));
                err.flush();
            }
        }
        return ExitCodes.OK;
    }

    private static HwException unclassifiable(String option, Path in, String why) {
        return new HwException(Cause.UNSUPPORTED, "bts report " + option + ": cannot tell calls from returns in " + in + ": "
                + why, "fold an LBR call-stack recording instead: hwtool lbr record --filter call-stack");
    }

    /**
     * Feeds the trace from the file: branches-event samples, or intel_bts AUXTRACE chunks (whose
     * records carry a tid; its pid comes from the COMM/FORK records before them), and the
     * mapping records to the symbolizer.
     */
    private static final class Reader implements RecordVisitor {
        private final BtsTrace bts;
        private final SymbolizerSymbols symbols;
        private final RecordingKind kind;
        private final Map<Integer, Integer> pidOfTid = new HashMap<>();

        Reader(BtsTrace bts, SymbolizerSymbols symbols, RecordingKind kind) {
            this.bts = bts;
            this.symbols = symbols;
            this.kind = kind;
        }

        @Override
        public void record(PerfRecordCursor c) {
            switch (c.type()) {
                case PerfRecordType.SAMPLE -> {
                    if (kind == RecordingKind.BTS_SAMPLES) {
                        bts.sample(c.pid(), c.tid(), c.ip(), c.addr());
                    }
                }
                case PerfRecordType.MMAP, PerfRecordType.MMAP2 -> symbols.add(c.toRecord());
                case PerfRecordType.COMM -> {
                    PerfRecord.Comm comm = (PerfRecord.Comm) c.toRecord();
                    pidOfTid.put(comm.tid(), comm.pid());
                }
                case PerfRecordType.FORK -> {
                    PerfRecord r = c.toRecord();
                    symbols.add(r);
                    PerfRecord.Task t = (PerfRecord.Task) r;
                    pidOfTid.put(t.tid(), t.pid());
                }
                default -> {
                }
            }
        }

        @Override
        public void auxtrace(long offset, int cpu, int tid, MemorySegment data) {
            if (kind != RecordingKind.BTS_AUX) {
                return;
            }
            try {
                bts.auxtrace(pidOfTid.getOrDefault(tid, tid), tid, data);
            } catch (PerfParseException e) {
                throw new HwException(Cause.BAD_INPUT, "bts report: AUX data at offset " + offset + ": " + e.getMessage());
            }
        }
    }
}
