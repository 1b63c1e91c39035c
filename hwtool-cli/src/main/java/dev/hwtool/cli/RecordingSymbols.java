package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.RecordingInfo;
import dev.hwtool.arch.branch.BranchKind;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.sim.record.SimulatedTargets;
import dev.hwtool.sim.workload.ProgramImage;
import dev.hwtool.arch.perf.PerfRecord;
import dev.hwtool.record.Symbolized;
import dev.hwtool.record.Symbolizer;
import dev.hwtool.report.BranchClassifier;
import dev.hwtool.report.BranchFlow;
import dev.hwtool.report.CodeLocation;
import dev.hwtool.report.Symbols;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A recording's {@link Symbolizer} as the reports' {@link Symbols} and {@link BranchClassifier}:
 * functions from the ELF files its MMAP records name (and kernel functions from /proc/kallsyms when
 * the recording's kernel is this one), branch kinds from the instruction bytes there. A simulated
 * recording's program is rebuilt in memory from the workload spec the recording keeps (its CMDLINE
 * target, {@link SimulatedTargets#image}), exactly the image the simulator ran, so its functions are
 * named with no file on disk; its own MMAP records are then not needed. A workload whose code is not
 * known before it runs (a trace read from standard input), or a scenario file that is gone, leaves
 * the recording's MMAP records, and hex where they name nothing readable.
 */
final class RecordingSymbols implements Symbols, BranchClassifier, AutoCloseable {

    private final Symbolizer symbolizer = new Symbolizer();
    private boolean image;

    /** Symbols for the recording {@code info} describes: its simulated program's image where there is one. */
    static RecordingSymbols of(RecordingInfo info) {
        RecordingSymbols s = new RecordingSymbols();
        if (RecordingFile.simulated(info)) {
            RecordTarget target = new RecordTarget.Workload(info.target(), Path.of(""));
            Optional<ProgramImage> img;
            try {
                img = SimulatedTargets.image(target);
            } catch (HwException e) {
                img = Optional.empty(); // a scenario file gone since, or a spec this version reads otherwise
            }
            img.ifPresent(p -> {
                String name = SimulatedTargets.imageName(target);
                s.symbolizer.addImage(p.start(), p.text().length, p.textOffset(), name, ElfFile.of(name, p.elf()));
                s.image = true;
            });
        }
        return s;
    }

    /** Whether the addresses come from a simulated program's image rebuilt from its spec. */
    boolean hasImage() {
        return image;
    }

    /** Takes in the mapping records (MMAP, MMAP2, FORK); every other record is ignored, and all of them once an image is known. */
    void add(PerfRecord r) {
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
