package dev.hwtool.api;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether one facility can be used here, why (concretely, from the facts and, on hardware, from
 * trying it), and the exact command or setting that would make it usable: the judgement
 * {@code hwtool caps} prints, as a value.
 *
 * @param facility what is judged
 * @param usable   whether it can be used
 * @param cause    why not, as the {@link Cause} an attempt fails with (its exit code); empty when usable
 * @param message  the facts the verdict rests on, in words (as {@link HwException#getMessage()} is
 *                 a failure's)
 * @param remedy   the command or setting that would make it usable; empty when it is usable or
 *                 when nothing can be done on this host (as {@link HwException#remedy()})
 */
public record Verdict(Facility facility, boolean usable, Optional<Cause> cause, String message, Optional<String> remedy) {

    public Verdict {
        Objects.requireNonNull(facility, "facility");
        Objects.requireNonNull(cause, "cause");
        if (message == null || message.isBlank()) {
            throw new IllegalArgumentException("a verdict needs a message");
        }
        if (usable == cause.isPresent()) {
            throw new IllegalArgumentException("a verdict has a cause exactly when it is not usable");
        }
        Objects.requireNonNull(remedy, "remedy");
        remedy = remedy.filter(r -> !r.isBlank());
    }

    /**
     * A verdict with a remedy given as text, where {@code null} or blank means none: the form the
     * judging code builds it in.
     */
    public Verdict(Facility facility, boolean usable, Optional<Cause> cause, String message, String remedy) {
        this(facility, usable, cause, message, Optional.ofNullable(remedy));
    }

    public boolean hasRemedy() {
        return remedy.isPresent();
    }

    /**
     * Throws this verdict's cause, message and remedy when the facility is not usable.
     *
     * @throws HwException the cause (its exit code), "FACILITY: message" and the remedy
     */
    public Verdict requireUsable() {
        if (!usable) {
            throw new HwException(cause.orElseThrow(), facility.label() + ": " + message, remedy.orElse(null));
        }
        return this;
    }
}
