package dev.hwtool.linux;

import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.CpuidSourceContract;
import dev.hwtool.ffm.FfmBinding;
import org.junit.jupiter.api.AfterEach;

/** The CpuidSource contract on the real /dev/cpu/N/cpuid device. */
class DeviceCpuidSourceContractTest extends CpuidSourceContract {
    private DeviceCpuidSource open;

    @Override
    protected CpuidSource source() {
        open = new DeviceCpuidSource(new FfmBinding());
        return open;
    }

    @AfterEach
    void close() {
        if (open != null) {
            open.close();
        }
    }
}
