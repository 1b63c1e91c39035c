package dev.hwtool.api;

import java.nio.file.Path;

/**
 * One run of a target, recorded and held in memory ({@link Recorder#record(RecordRequest,
 * RecordTarget)}): ask it for its hottest branches, its call stacks folded, or a flame graph, with
 * no file in between; {@link #writePerfData} writes it as the perf.data {@code perf report} and
 * {@code hwtool lbr report} read.
 *
 * <p>The analyses ({@link BranchStacks}) are those of {@code hwtool lbr report}, from the same code: branches and
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
public interface Recording extends BranchStacks, AutoCloseable {

    /** The backend it was recorded on, as {@link Recorder#backend()} names it. */
    String backend();

    /** What ran: the command line, or the simulated workload's spec. */
    String target();

    /** How the recording went: records, samples, losses, the target's exit status. */
    RecordingSummary summary();

    /** Its size as perf.data, in bytes. */
    long size();

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
