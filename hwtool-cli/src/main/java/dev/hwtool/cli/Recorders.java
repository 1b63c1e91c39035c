package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Recorder;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.perf.PerfRecorder;

/** The {@link Recorder} of a backend: perf_event_open on the hardware, the simulated CPU's driver on the simulator. */
final class Recorders {

    private Recorders() {
    }

    static Recorder of(Platform platform) {
        if (platform instanceof LinuxPlatform linux) {
            return new PerfRecorder(linux);
        }
        throw new HwException(Cause.UNSUPPORTED, platform.description() + " has no recorder",
                "record on the hardware backend (--backend hw)");
    }
}
