package dev.hwtool.caps;

import dev.hwtool.api.HwException;

import java.util.Objects;
import java.util.Optional;

/**
 * What actually happened when a facility was tried on this machine (the hardware backend opens
 * the very perf event its commands would open): usable or not, a one-line account, and the
 * failure with its cause and remedy. {@link Verdicts#assess(dev.hwtool.arch.decode.CpuCapabilities,
 * LinuxFacts, java.util.Map)} lets it overrule what the facts predicted.
 *
 * @param detail  what was opened and what came of it, e.g. "opened cycles:u with branch_sample_type 0x..."
 * @param failure the exception that made it unusable; present exactly when {@code usable} is false
 */
public record Probe(boolean usable, String detail, Optional<HwException> failure) {

    public Probe {
        Objects.requireNonNull(detail, "detail");
        Objects.requireNonNull(failure, "failure");
        if (usable == failure.isPresent()) {
            throw new IllegalArgumentException("a probe fails exactly when it carries a failure");
        }
    }

    public static Probe ok(String detail) {
        return new Probe(true, detail, Optional.empty());
    }

    public static Probe failed(String detail, HwException failure) {
        return new Probe(false, detail, Optional.of(failure));
    }
}
