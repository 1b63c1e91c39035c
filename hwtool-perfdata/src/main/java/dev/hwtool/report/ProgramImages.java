package dev.hwtool.report;

import dev.hwtool.record.RecordingInfo;

import java.util.ServiceLoader;

/**
 * The program images of a recording that its MMAP records cannot name: a simulated recording's
 * program exists only in the simulator, which rebuilds it exactly from the workload spec the
 * recording keeps (its CMDLINE target). The simulator provides one, found by {@link ServiceLoader}
 * ({@code provides} on the module path, META-INF/services on the class path); where it is absent,
 * such addresses stay hex, as perf report leaves them.
 */
public interface ProgramImages {

    /**
     * Adds to {@code symbols} the image of the program {@code info} ran, if this provider knows it;
     * else does nothing.
     */
    void addImages(RecordingInfo info, SymbolizerSymbols symbols);

    /**
     * Symbols for the recording {@code info} describes: every provider's images, then (for
     * addresses no image holds) the recording's own mappings as they are read.
     */
    static SymbolizerSymbols symbolsFor(RecordingInfo info) {
        SymbolizerSymbols symbols = new SymbolizerSymbols();
        try {
            for (ProgramImages p : ServiceLoader.load(ProgramImages.class, ProgramImages.class.getClassLoader())) {
                p.addImages(info, symbols);
            }
            return symbols;
        } catch (RuntimeException | Error e) {
            symbols.close();
            throw e;
        }
    }
}
