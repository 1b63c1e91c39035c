package dev.hwtool.cli;

import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.perf.PerfRecord;
import dev.hwtool.record.Symbolized;
import dev.hwtool.record.Symbolizer;
import dev.hwtool.report.BranchClassifier;
import dev.hwtool.report.BranchFlow;
import dev.hwtool.report.CodeLocation;
import dev.hwtool.report.Symbols;

import java.util.Optional;

/**
 * A recording's {@link Symbolizer} as the reports' {@link Symbols} and {@link BranchClassifier}:
 * functions from the ELF files its MMAP records name (and kernel functions from /proc/kallsyms when
 * the recording's kernel is this one), branch kinds from the instruction bytes there. A recording
 * without mappings shows its addresses as hex.
 */
final class RecordingSymbols implements Symbols, BranchClassifier, AutoCloseable {

    private final Symbolizer symbolizer = new Symbolizer();

    /** Takes in the mapping records (MMAP, MMAP2, FORK); every other record is ignored. */
    void add(PerfRecord r) {
        symbolizer.add(r);
    }

    @Override
    public Optional<String> function(int pid, long addr) {
        return symbolizer.resolve(pid, addr).map(Symbolized::function);
    }

    @Override
    public String describe(int pid, long addr) {
        return symbolizer.describe(pid, addr);
    }

    @Override
    public CodeLocation locate(int pid, long addr, int cpumode) {
        return symbolizer.locate(pid, addr, cpumode);
    }

    /** Calls and returns from the decoded instruction; an undecodable one is unknown. */
    @Override
    public Optional<BranchFlow> classify(int pid, long from) {
        return symbolizer.classify(pid, from).flatMap(RecordingSymbols::flow);
    }

    static Optional<BranchFlow> flow(BranchKind kind) {
        return switch (kind) {
            case CALL, IND_CALL -> Optional.of(BranchFlow.CALL);
            case RET -> Optional.of(BranchFlow.RETURN);
            case JCC, JMP, IND_JMP, SYSCALL, SYSRET_IRET -> Optional.of(BranchFlow.OTHER);
            case OTHER -> Optional.empty();
        };
    }

    @Override
    public void close() {
        symbolizer.close();
    }
}
