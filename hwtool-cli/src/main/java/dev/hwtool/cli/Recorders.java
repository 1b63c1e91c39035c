package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Recorder;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.perf.PerfRecorder;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.record.SimulatedRecorder;

import java.util.function.BooleanSupplier;

/** The {@link Recorder} of a backend: perf_event_open on the hardware, the simulated CPU's driver on the simulator. */
final class Recorders {

    private Recorders() {
    }

    /**
     * @param stopRequested the simulator's workload ends early when this says so (Ctrl-C); on the
     *                      hardware a command gets the signal itself (HeldChild)
     */
    static Recorder of(Platform platform, BooleanSupplier stopRequested) {
        if (platform instanceof LinuxPlatform linux) {
            return new PerfRecorder(linux);
        }
        if (platform instanceof SimulatedPlatform sim) {
            return new SimulatedRecorder(sim, stopRequested);
        }
        throw new HwException(Cause.UNSUPPORTED, platform.description() + " has no recorder",
                "record with --backend hw, or --backend sim --profile NAME");
    }
}
