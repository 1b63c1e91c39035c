package dev.hwtool.caps;

import dev.hwtool.api.Cause;

import java.util.Objects;
import java.util.Optional;

/**
 * Whether one facility can be used here, why (concretely, from the facts), and the exact
 * command or setting that would make it usable. The remedy is empty when the facility is
 * usable or when nothing can be done on this host.
 *
 * @param cause the bounded category of what blocks the facility (the first blocker's, when
 *              several do), for machines to count by: present exactly when it is not usable
 */
public record Verdict(Facility facility, boolean usable, String reason, String remedy, Optional<Cause> cause) {

    public Verdict {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a verdict needs a reason");
        }
        remedy = remedy == null ? "" : remedy;
        Objects.requireNonNull(cause, "cause");
        if (usable == cause.isPresent()) {
            throw new IllegalArgumentException("a verdict has a cause exactly when it is not usable");
        }
    }

    public boolean hasRemedy() {
        return !remedy.isEmpty();
    }
}
