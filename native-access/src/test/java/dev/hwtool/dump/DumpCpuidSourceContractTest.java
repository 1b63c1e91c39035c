package dev.hwtool.dump;

import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.caps.CpuidReading;

import java.nio.file.Path;

/** The CpuidReading contract on a shipped multi-CPU AIDA64 dump (Alder Lake, 24 CPUs). */
class DumpCpuidSourceContractTest extends CpuidSourceContract {
    private static final Path DUMPS = Path.of(System.getProperty("hwtool.cpuid.dumps",
            "../simulator-fallback/src/main/resources/dev/hwtool/sim/profiles"));

    @Override
    protected CpuidReading source() {
        return DumpCpuidSource.load(DUMPS.resolve("alderlake.txt"));
    }
}
