package dev.hwtool.caps;

/**
 * Whether one facility can be used here, why (concretely, from the facts), and the exact
 * command or setting that would make it usable. The remedy is empty when the facility is
 * usable or when nothing can be done on this host.
 */
public record Verdict(Facility facility, boolean usable, String reason, String remedy) {

    public Verdict {
        if (reason == null || reason.isBlank()) {
            throw new IllegalArgumentException("a verdict needs a reason");
        }
        remedy = remedy == null ? "" : remedy;
    }

    public boolean hasRemedy() {
        return !remedy.isEmpty();
    }
}
