package dev.hwtool.linux;

import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.api.Platform;
import dev.hwtool.caps.CpuidReading;
import org.junit.jupiter.api.AfterEach;

import java.util.ArrayList;
import java.util.List;

/** The CpuidReading contract on the real /dev/cpu/N/cpuid device, through {@code Platform.open} with the device source. */
class DeviceCpuidSourceContractTest extends CpuidSourceContract {
    private final List<Platform> opened = new ArrayList<>();

    @Override
    protected CpuidReading source() {
        // The nodes are 0400 root (arch/x86/kernel/cpuid.c cpuid_devnode): a user skips, CI fails.
        dev.hwtool.testing.Preconditions.cpuidDevice();
        Platform p = Platform.open(Platform.Options.defaults().cpuidSource("device"));
        opened.add(p);
        return CpuidReading.of(p.cpuid());
    }

    @AfterEach
    void close() {
        opened.forEach(Platform::close);
    }
}
