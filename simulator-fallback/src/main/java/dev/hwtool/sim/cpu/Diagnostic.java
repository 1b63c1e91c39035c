package dev.hwtool.sim.cpu;

/**
 * A set-up the SDM calls undefined, flagged by the simulator (which then behaves as the
 * unit's javadoc says).
 *
 * @param code        stable name, e.g. "bts-buffer-too-small"
 * @param message     one line: what, and what the simulator did
 * @param instruction instructions retired on that CPU when it was first seen
 */
public record Diagnostic(String code, String message, long instruction) {
}
