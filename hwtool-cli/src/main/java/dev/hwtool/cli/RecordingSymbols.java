package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.elf.ElfFile;
import dev.hwtool.sim.record.SimulatedTargets;
import dev.hwtool.sim.workload.ProgramImage;
import dev.hwtool.report.SymbolizerSymbols;

import java.nio.file.Path;
import java.util.Optional;

/**
 * The symbols of a recording read from a file ({@link SymbolizerSymbols}): a simulated
 * recording's program is rebuilt in memory from the workload spec the recording keeps (its
 * CMDLINE target, {@link SimulatedTargets#image}), exactly the image the simulator ran, so its
 * functions are named with no file on disk. A workload whose code is not known before it runs (a
 * trace read from standard input), or a scenario file that is gone, leaves the recording's MMAP
 * records, and hex where they name nothing readable.
 */
final class RecordingSymbols extends SymbolizerSymbols {

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
                s.addImage(p.start(), p.text().length, p.textOffset(), name, ElfFile.of(name, p.elf()));
            });
        }
        return s;
    }
}
