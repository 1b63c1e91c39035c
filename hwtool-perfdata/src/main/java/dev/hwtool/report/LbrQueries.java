package dev.hwtool.report;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.BranchStacks;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HotBranch;
import dev.hwtool.api.HwException;
import dev.hwtool.io.OutputFile;
import dev.hwtool.record.PerfDataFile;
import dev.hwtool.record.RecordingInfo;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * The {@link BranchStacks} questions asked of one perf.data reading, whether its bytes are in
 * memory (an in-memory {@link dev.hwtool.api.Recording}) or in a file
 * ({@code dev.hwtool.perfdata.PerfData}): one walk over the samples ({@link LbrAnalysis}), made
 * when first asked and kept, and the refusals said alike. Not for use by several threads at once.
 */
public final class LbrQueries implements BranchStacks {

    private final PerfDataFile data;
    private final Supplier<SymbolizerSymbols> symbols;
    private LbrAnalysis analysis;

    /**
     * @param data    the recording, which the caller keeps open while it asks, and closes
     * @param symbols names its addresses: a new set for the one walk, which closes it
     */
    public LbrQueries(PerfDataFile data, Supplier<SymbolizerSymbols> symbols) {
        this.data = data;
        this.symbols = symbols;
    }

    @Override
    public List<HotBranch> hottestBranches(int limit) {
        if (limit < 0) {
            throw new IllegalArgumentException("limit must be 0 (all) or more, got " + limit);
        }
        List<HotBranch> rows = analyse(false).rows();
        return limit == 0 ? rows : List.copyOf(rows.subList(0, Math.min(limit, rows.size())));
    }

    @Override
    public List<String> foldedStacks() {
        List<String> out = new ArrayList<>();
        for (FoldedStacks.Line l : analyse(true).stacks().lines()) {
            out.add(l.stack() + " " + l.count());
        }
        return List.copyOf(out);
    }

    @Override
    public void writeFlameGraph(Path html) {
        LbrAnalysis lbr = analyse(true);
        // lbr report --flamegraph's title for the same recording: a folded one is always call-stack
        String title = FlameGraphTitle.of(data.info(), "filter " + BranchFilter.CALL_STACK.cliName(), lbr.stacks(),
                "samples", lbr.samples(), "no sample in the recording (record with a smaller period or a longer workload)");
        String page;
        try {
            page = FlameGraphHtml.render(lbr.stacks(), title);
        } catch (NoClassDefFoundError e) {
            throw new HwException(Cause.UNSUPPORTED, "a flame graph needs async-profiler's converter, which is not here ("
                    + e.getMessage() + ")", "put one.convert:jfr-converter on the class or module path");
        }
        OutputFile.write(html, page.getBytes(StandardCharsets.UTF_8));
    }

    private LbrAnalysis analyse(boolean fold) {
        RecordingInfo info = data.info();
        RecordingKind kind = RecordingKind.of(info);
        if (kind != RecordingKind.LBR) {
            throw new HwException(Cause.BAD_INPUT, "the recording holds " + RecordingKind.events(info)
                    + " samples without branch stacks, not an LBR recording",
                    "record with RecordRequest.Lbr, or perf record -b / -j");
        }
        boolean callStack = RecordingKind.callStack(info);
        if (fold && !callStack) {
            // other filters' entries are the last branches taken, not open calls
            throw new HwException(Cause.BAD_INPUT, "the recording's branch stacks are not call chains: it was not"
                    + " recorded with BranchFilter.CALL_STACK", "record with BranchFilter.CALL_STACK, or perf record -j call_stack");
        }
        if (analysis == null) {
            try (SymbolizerSymbols s = symbols.get()) {
                analysis = LbrAnalysis.read(data, s, HotBranches.Order.COUNT, callStack);
            }
        }
        return analysis;
    }
}
