package dev.hwtool.sim;

import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.linux.LinuxPlatform;

import java.util.Optional;

/**
 * The explicit choice between hardware and simulator that library users make, after
 * jnr-posix's factory: hardware (errors propagate), the simulator, or "hardware if
 * available, else this simulator profile" — and in that last case the result says that it
 * fell back and why. Nothing here substitutes silently.
 */
public final class Platforms {

    private Platforms() {
    }

    /** A platform and, when the hardware could not be used, the reason it fell back. */
    public record Selection(Platform platform, Optional<String> fallbackReason) {
        public boolean fellBack() {
            return fallbackReason.isPresent();
        }
    }

    /** The Linux hardware backend with the default (FFM) binding. */
    public static Platform hardware() {
        return LinuxPlatform.open();
    }

    public static Platform simulator(String profileNameOrFile) {
        return SimulatedPlatform.of(profileNameOrFile);
    }

    /** Hardware if it can be opened, otherwise the simulator with {@code profile}, saying why. */
    public static Selection hardwareElseSimulator(String profile) {
        try {
            return new Selection(LinuxPlatform.open(), Optional.empty());
        } catch (HwException e) {
            return new Selection(SimulatedPlatform.of(profile), Optional.of(e.getMessage()));
        }
    }
}
