package dev.hwtool.qemu;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one guest check saw, one JSON line in the results file: either values (e.g. the register
 * read, or the TSC before and after) or a failure — the {@link dev.hwtool.api.Cause} name of an
 * {@link HwException}, {@code UNEXPECTED <class>} for anything else, or for a test of the
 * contract suite its JUnit status (FAILED, ABORTED, SKIPPED; {@link GuestContract}). The guest
 * only observes; the host test decides what was expected, so every expectation is a JUnit
 * assertion.
 */
record Observation(String check, Map<String, String> values, String cause, String message) {

    static final String UNEXPECTED = "UNEXPECTED ";

    Observation {
        values = Map.copyOf(values);
    }

    static Observation ok(String check, Map<String, String> values) {
        return new Observation(check, new LinkedHashMap<>(values), null, null);
    }

    static Observation failed(String check, Throwable t) {
        String cause = t instanceof HwException h ? h.cause().name() : UNEXPECTED + t.getClass().getName();
        return new Observation(check, Map.of(), cause, String.valueOf(t.getMessage()));
    }

    boolean succeeded() {
        return cause == null;
    }

    String toJson() {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("check", check);
        m.put("values", new java.util.TreeMap<>(values));
        m.put("cause", cause);
        m.put("message", message);
        try {
            return JSON.std.with(JSON.Feature.WRITE_NULL_PROPERTIES).asString(m);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @SuppressWarnings("unchecked")
    static Observation fromJson(String line) {
        try {
            Map<String, Object> m = JSON.std.mapFrom(line);
            Map<String, String> values = new LinkedHashMap<>();
            ((Map<String, Object>) m.get("values")).forEach((k, v) -> values.put(k, String.valueOf(v)));
            return new Observation((String) m.get("check"), values, (String) m.get("cause"), (String) m.get("message"));
        } catch (IOException e) {
            throw new UncheckedIOException("not an observation: " + line, e);
        }
    }

    @Override
    public String toString() {
        return succeeded() ? check + " " + values : check + " failed: " + cause + ": " + message;
    }
}
