package dev.hwtool.sim.cpu;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Set-ups the SDM calls undefined or forbids without a fault, kept once per code with a count,
 * so that a branch loop over a bad buffer describes the problem once and then only counts.
 */
final class Diagnostics {

    private final Map<String, Diagnostic> byCode = new LinkedHashMap<>();
    private final Map<String, long[]> counts = new LinkedHashMap<>();
    private final LongSupplier instructions;

    Diagnostics(LongSupplier instructions) {
        this.instructions = instructions;
    }

    /** Counts one occurrence of {@code code}; true the first time, when the caller should {@link #describe} it. */
    boolean occurred(String code) {
        long[] n = counts.get(code);
        if (n == null) {
            counts.put(code, new long[] {1});
            return true;
        }
        n[0]++;
        return false;
    }

    void describe(String code, String message) {
        byCode.put(code, new Diagnostic(code, message, instructions.getAsLong()));
    }

    long count(String code) {
        long[] n = counts.get(code);
        return n == null ? 0 : n[0];
    }

    List<Diagnostic> all() {
        return new ArrayList<>(byCode.values());
    }
}
