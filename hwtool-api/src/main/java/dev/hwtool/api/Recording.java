package dev.hwtool.api;

import java.nio.file.Path;
import java.util.List;

/**
 * One run of a target, recorded and held in memory ({@link Recorder#record(RecordRequest,
 * RecordTarget)}): ask it for its hottest branches, its call stacks folded, or a flame graph, with
 * no file in between; {@link #writePerfData} writes it as the perf.data {@code perf report} and
 * {@code hwtool lbr report} read.
 *
 * <p>The analyses are those of {@code hwtool lbr report}, from the same code: branches and
 * functions named from the recorded program (a simulated program's own image, or the ELF files
 * the recording's mappings name), perf's order of records. They read an LBR (branch-stack)
 * recording; asked of another kind, they throw {@link Cause#BAD_INPUT} saying what it holds. A
 * recording is held as its perf.data bytes, at most 2 GiB: a larger one is refused while it is
 * recorded ({@link Cause#UNSUPPORTED}, with the remedy to record to a file), never cut short.
 * It is read once, when first asked, and its answers are kept; it is not for use by several
 * threads at once.
 *
 * <pre>{@code
 * try (SimulatedPlatform p = SimulatedPlatform.of("skylake");
 *      Recording r = p.recorder().record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.CALL_STACK, 1000),
 *              p.workload("calltree depth=5 calls=20000"))) {
 *     r.hottestBranches(10).forEach(b -> System.out.println(b.fromName() + " -> " + b.toName() + " " + b.count()));
 *     r.foldedStacks().forEach(System.out::println);              // "main;f1;f2 42"
 *     r.writeFlameGraph(Path.of("calls.html"));
 * }
 * }</pre>
 */
public interface Recording extends AutoCloseable {

    /** The backend it was recorded on, as {@link Recorder#backend()} names it. */
    String backend();

    /** What ran: the command line, or the simulated workload's spec. */
    String target();

    /** How the recording went: records, samples, losses, the target's exit status. */
    RecordingSummary summary();

    /** Its size as perf.data, in bytes. */
    long size();

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

    /**
     * Writes it to {@code file} as perf.data, whole or not at all.
     *
     * @throws HwException OS_ERROR when it cannot be written
     */
    void writePerfData(Path file);

    /** Lets its memory go; every method but this one refuses afterwards. */
    @Override
    void close();
}
