package dev.hwtool.sim.record;

import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.report.ProgramImages;
import dev.hwtool.report.SymbolizerSymbols;
import dev.hwtool.sim.workload.ProgramImage;

import java.nio.file.Path;
import java.util.Optional;

/**
 * A simulated recording's program, rebuilt from its workload exactly as the simulator ran it
 * ({@link SimulatedTargets#image}), so its functions are named with no file on disk: for the
 * recording in memory, and for a perf.data file the simulator wrote (found by perf.data's readers
 * as a {@link ProgramImages} service). A workload whose code is not known before it runs (a trace
 * read from standard input), or a scenario file gone since, adds nothing: the recording's MMAP
 * records name what they can, and the rest stays hex.
 */
public final class SimulatedImages implements ProgramImages {

    /** Adds {@code target}'s program to {@code symbols}, when it can be rebuilt. */
    static void add(RecordTarget target, SymbolizerSymbols symbols) {
        Optional<ProgramImage> image;
        try {
            image = SimulatedTargets.image(target);
        } catch (HwException e) {
            image = Optional.empty(); // a scenario file gone since, or a spec this version reads otherwise
        }
        image.ifPresent(p -> {
            String name = SimulatedTargets.imageName(target);
            symbols.addImage(p.start(), p.text().length, p.textOffset(), name, ElfFile.of(name, p.elf()));
        });
    }

    /**
     * The recording's program, when the simulator made it: its CMDLINE target is the workload spec,
     * whose relative paths (a scenario file) are read from the working directory.
     */
    @Override
    public void addImages(RecordingInfo info, SymbolizerSymbols symbols) {
        if (info.simulated()) {
            add(new RecordTarget.Workload(info.target(), Path.of("")), symbols);
        }
    }
}
