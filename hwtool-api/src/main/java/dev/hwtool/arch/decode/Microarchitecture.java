package dev.hwtool.arch.decode;

/**
 * A microarchitecture name from the model tables, or {@link #UNKNOWN}: the tables say
 * "unknown" rather than guess.
 *
 * @param name       e.g. "Skylake", "Alder Lake", "Zen 4", or "unknown"
 * @param coreNames  the core designs, e.g. "Golden Cove + Gracemont" (may be empty)
 */
public record Microarchitecture(String name, String coreNames) {
    public static final Microarchitecture UNKNOWN = new Microarchitecture("unknown", "");

    public boolean known() {
        return !UNKNOWN.name.equals(name);
    }
}
