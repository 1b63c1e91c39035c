package dev.hwtool.api;

import java.nio.file.Path;
import java.util.List;

/**
 * Samples with LBR branch stacks, to analyse: their hottest branches, their call stacks folded, a
 * flame graph. An in-memory {@link Recording} answers, and so does a perf.data file read by
 * hwtool-perfdata's {@code dev.hwtool.perfdata.PerfData}, perf's own files included: the same code
 * reads both, as {@code hwtool lbr report} reads a file, so code written against this type takes
 * either.
 */
public interface BranchStacks {

    /**
     * The most frequent (from, to) pairs of its LBR entries, most frequent first (ties by address),
     * as {@code hwtool lbr report} ranks them.
     *
     * @param limit at most this many rows; 0 for all
     * @throws HwException BAD_INPUT when it is not an LBR recording
     */
    List<HotBranch> hottestBranches(int limit);

    /**
     * Its call stacks folded as flamegraph.pl reads them, one line per distinct stack, outermost
     * function first: {@code "main;work;leaf 42"}. Only the LBR call-stack mode records call
     * chains.
     *
     * @throws HwException BAD_INPUT when it was not recorded with {@link BranchFilter#CALL_STACK}
     */
    List<String> foldedStacks();

    /**
     * Writes {@link #foldedStacks()} to {@code html} as an interactive flame graph (async-profiler's
     * page: search, zoom, counts), under the same rules as every file hwtool writes: nothing
     * appears at {@code html} unless it is whole.
     *
     * @throws HwException BAD_INPUT as {@link #foldedStacks()}; UNSUPPORTED when the renderer
     *                     (jfr-converter) is not on the class or module path; OS_ERROR when it
     *                     cannot be written
     */
    void writeFlameGraph(Path html);
}
