package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.linux.LinuxPlatform;

/** The platform's MSRs. */
final class MsrPlatform {

    private MsrPlatform() {
    }

    static MsrAccess msr(Platform platform) {
        if (platform instanceof LinuxPlatform lp) {
            return lp.msr();
        }
        throw new HwException(Cause.UNSUPPORTED, "this platform has no MSR access yet: " + platform.description());
    }
}
