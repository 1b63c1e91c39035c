package dev.hwtool.sim.scenario;

import java.util.OptionalInt;
import java.util.OptionalLong;

/**
 * What one command of a scenario did.
 *
 * @param line     the script line
 * @param source   the command as written (comment stripped)
 * @param cpu      the CPU it acted on; empty for {@code profile} and {@code cpus}
 * @param outcome  what kind of result this is
 * @param value    the value read ({@link Outcome#VALUE}), or the value found by an expectation
 * @param text     a report ({@link Outcome#REPORT}, several lines) or a one-line note, else empty
 * @param expected what an {@code expect} line expected (empty for other commands)
 */
public record StepResult(int line, String source, OptionalInt cpu, Outcome outcome, OptionalLong value, String text,
                         OptionalLong expected) {

    /** The kinds of result. */
    public enum Outcome {
        /** The command changed state or retired something; nothing to show. */
        DONE,
        /** A value was read (rdmsr, mem read64). */
        VALUE,
        /** A readable report (lbr, bts, pmi). */
        REPORT,
        /** An expectation held. */
        PASSED,
        /** An expect-fault access raised #GP as expected. */
        FAULTED
    }

    /** Whether a person reading the text output wants to see this result. */
    public boolean shown() {
        return outcome != Outcome.DONE;
    }
}
