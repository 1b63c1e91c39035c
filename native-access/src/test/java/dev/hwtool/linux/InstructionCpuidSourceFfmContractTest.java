package dev.hwtool.linux;

import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.api.Platform;
import dev.hwtool.caps.CpuidReading;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/** The CpuidReading contract on the real CPU, through {@code Platform.open}: the instruction on the FFM binding. */
class InstructionCpuidSourceFfmContractTest extends CpuidSourceContract {
    private final List<Platform> opened = new ArrayList<>();

    @Override
    protected CpuidReading source() {
        Platform p = Platform.open(Platform.Options.defaults().binding("ffm"));
        opened.add(p);
        return CpuidReading.of(p.cpuid());
    }

    @AfterEach
    void close() {
        opened.forEach(Platform::close);
    }
}
