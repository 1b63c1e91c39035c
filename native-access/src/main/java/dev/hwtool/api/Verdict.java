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
 * @param reason   the facts the verdict rests on, in words
 * @param remedy   the command or setting that would make it usable; empty when it is usable or
 *                 when nothing can be done on this host
 */
public record Verdict(Facility facility, boolean usable, Optional<Cause> cause, String reason, String remedy) {

    public Verdict {
        Objects.requireNonNull(facility, "facility");
        Objects.requireNonNull(cause, "cause");
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a verdict needs a reason");
        }
        if (usable == cause.isPresent()) {
            throw new IllegalArgumentException("a verdict has a cause exactly when it is not usable");
        }
        remedy = remedy == null ? "" : remedy;
    }

    public boolean hasRemedy() {
        return !remedy.isEmpty();
    }

    /**
     * Throws this verdict's cause, reason and remedy when the facility is not usable.
     *
     * @throws HwException the cause (its exit code), "FACILITY: reason" and the remedy
     */
    public Verdict requireUsable() {
        if (!usable) {
            throw new HwException(cause.orElseThrow(), facility.label() + ": " + reason, remedy.isEmpty() ? null : remedy);
        }
        return this;
    }
}
