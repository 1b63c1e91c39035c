package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.linux.DeviceMsrAccess;
import dev.hwtool.linux.LinuxPlatform;

/** doctor's live probe: one read-only RDMSR through the hardware platform's MsrAccess. */
final class LiveProbe {

    private LiveProbe() {
    }

    /** Reads IA32_TIME_STAMP_COUNTER on {@code cpu}; a failure is kept, with its cause, not thrown. */
    static LiveRead readTsc(LinuxPlatform hw, int cpu) {
        try {
            MsrAccess msr = hw.msr();
            long v = msr.read(cpu, LiveRead.IA32_TIME_STAMP_COUNTER);
            String via = msr instanceof DeviceMsrAccess d ? d.description() : hw.description();
            return new LiveRead.Value(cpu, v, via);
        } catch (HwException e) {
            return new LiveRead.Failed(cpu, e);
        }
    }
}
