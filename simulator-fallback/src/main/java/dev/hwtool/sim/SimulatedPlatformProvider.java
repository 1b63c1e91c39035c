package dev.hwtool.sim;

import dev.hwtool.api.Platform;
import dev.hwtool.api.PlatformProvider;

/** The simulator for {@link Platform#open}'s explicit fallback. */
public final class SimulatedPlatformProvider implements PlatformProvider {

    @Override
    public Platform.Kind kind() {
        return Platform.Kind.SIMULATED;
    }

    @Override
    public Platform open(Platform.Options options, String fallbackReason) {
        String profile = options.fallbackProfile().orElseThrow(() -> new IllegalArgumentException(
                "no simulator profile in the options"));
        SimulatedPlatform p = SimulatedPlatform.of(profile);
        p.fallbackReason = fallbackReason;
        return p;
    }
}
