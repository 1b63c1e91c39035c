package dev.hwtool.containers;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** One process run inside a container: its exit code and what it printed. */
record ContainerRun(int exit, String out, String err) {

    Map<String, Object> json() {
        try {
            return JSON.std.mapFrom(out);
        } catch (IOException e) {
            throw new UncheckedIOException("stdout is not JSON: " + this, e);
        }
    }

    /** Exit 0 and nothing on stderr; returns this for chaining. */
    ContainerRun assertOk() {
        assertEquals(0, exit, this::toString);
        assertEquals("", err, this::toString);
        return this;
    }

    /**
     * Failed as hwtool promises (Cli): the cause's exit code, nothing on stdout, and on stderr
     * one error line, optionally followed by one "fix:" line; no stack trace.
     *
     * @return the error line
     */
    String assertFailedWith(Cause cause) {
        assertEquals(cause.exitCode(), exit, () -> "exit code of " + cause + "\n" + this);
        assertEquals("", out, this::toString);
        List<String> lines = err.lines().toList();
        assertFalse(lines.isEmpty(), this::toString);
        assertTrue(lines.size() <= 2, () -> "one error line and at most one fix line\n" + this);
        assertTrue(lines.getFirst().startsWith("hwtool: ") && !lines.getFirst().startsWith("hwtool: fix: "), this::toString);
        if (lines.size() == 2) {
            assertTrue(lines.get(1).startsWith("hwtool: fix: "), this::toString);
        }
        assertFalse(err.contains("Exception") || err.contains("\tat "), () -> "no stack trace\n" + this);
        return lines.getFirst();
    }

    @Override
    public String toString() {
        return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
    }
}
