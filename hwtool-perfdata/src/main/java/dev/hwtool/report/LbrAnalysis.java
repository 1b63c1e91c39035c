package dev.hwtool.report;

import dev.hwtool.api.HotBranch;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.record.PerfDataFile;

import java.util.List;

/**
 * What one reading of an LBR recording gives: its hottest branches and, from a call-stack
 * recording, its folded call stacks. {@code hwtool lbr report} reads a perf.data file with it and
 * an in-memory {@link dev.hwtool.api.Recording} its own bytes, so the two give the same answers
 * for the same recording.
 *
 * @param rows          every (from, to) pair, symbolized, in the order asked for
 * @param samples       samples of the events that carry branch stacks
 * @param branchSamples those of them that carried one
 * @param entries       LBR entries counted: the sum of every row's count
 * @param stacks        the call stacks, when asked to fold; else none
 */
public record LbrAnalysis(List<HotBranch> rows, long samples, long branchSamples, long entries, FoldedStacks stacks) {

    public LbrAnalysis {
        rows = List.copyOf(rows);
    }

    /**
     * Reads {@code data} once: each sample's entries are counted as perf report --branch-stack
     * counts them ({@link HotBranches}) and, with {@code fold}, its stack folded
     * ({@link CallStackFolder}); the caller checks first that the recording is an LBR one, and a
     * call-stack one to fold, as the reasons to refuse are said differently to each.
     *
     * @param symbols names the addresses; takes the recording's mappings as they are read
     */
    public static LbrAnalysis read(PerfDataFile data, SymbolizerSymbols symbols, HotBranches.Order order,
                                   boolean fold) {
        HotBranches hot = new HotBranches();
        CallStackFolder folder = new CallStackFolder(symbols);
        // the events whose samples carry branch stacks; the others' samples have none to count
        Samples.forEach(data, Samples.branchStackEvents(data.info()), symbols, (c, e) -> {
            // Counted from the cursor: no record value per sample, the hot path of a large file.
            hot.add(c);
            if (fold) {
                folder.add((PerfRecord.Sample) c.toRecord());
            }
        });
        return new LbrAnalysis(hot.rows(symbols, order), hot.samples(), hot.branchSamples(), hot.entries(),
                folder.stacks());
    }
}
