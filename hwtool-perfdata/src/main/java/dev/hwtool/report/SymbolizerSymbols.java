package dev.hwtool.report;

import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.record.CodeLocation;
import dev.hwtool.record.Symbolized;
import dev.hwtool.record.Symbolizer;

import java.util.Optional;

/**
 * A recording's {@link Symbolizer} as the reports' {@link Symbols} and {@link BranchClassifier}:
 * functions from the ELF files its MMAP records name (and kernel functions from /proc/kallsyms
 * when the recording's kernel is this one), branch kinds from the instruction bytes there. A
 * program image given up front ({@link #addImage}: a simulated program, rebuilt in memory exactly
 * as the simulator ran it) names the addresses instead, and the recording's own MMAP records are
 * then not needed.
 */
public class SymbolizerSymbols implements Symbols, BranchClassifier, AutoCloseable {

    private final Symbolizer symbolizer;
    private boolean image;

    /** Names from a symbolizer of its own, which {@link #close} closes. */
    public SymbolizerSymbols() {
        this(new Symbolizer());
    }

    /** Names from {@code symbolizer} (one with a kallsyms of its choosing, say); {@link #close} closes it. */
    public SymbolizerSymbols(Symbolizer symbolizer) {
        this.symbolizer = java.util.Objects.requireNonNull(symbolizer, "symbolizer");
    }

    /** The program's text at {@code start}: {@code length} bytes at {@code offset} of {@code elf}. */
    public void addImage(long start, long length, long offset, String name, ElfFile elf) {
        symbolizer.addImage(start, length, offset, name, elf);
        image = true;
    }

    /** Whether the addresses come from an image given up front. */
    public boolean hasImage() {
        return image;
    }

    /** Takes in the mapping records (MMAP, MMAP2, FORK); every other record is ignored, and all of them once an image is known. */
    public void add(PerfRecord r) {
        if (!image) {
            symbolizer.add(r);
        }
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
        return symbolizer.classify(pid, from).flatMap(SymbolizerSymbols::flow);
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
