package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.sim.SimulatedPlatform;

/**
 * The platform's MSRs, until {@code Platform} itself offers {@code msr()}: then every call site
 * becomes {@code platform.msr()} and this class goes.
 */
final class MsrPlatform {

    private MsrPlatform() {
    }

    static MsrAccess msr(Platform platform) {
        return switch (platform) {
            case LinuxPlatform lp -> lp.msr();
            case SimulatedPlatform sp -> sp.msr();
            default -> throw new HwException(Cause.UNSUPPORTED, "no MSR access on " + platform.description());
        };
    }
}
