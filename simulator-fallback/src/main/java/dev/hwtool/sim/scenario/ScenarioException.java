package dev.hwtool.sim.scenario;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.util.List;

/**
 * A scenario that stopped at a line: an expectation that failed ({@link Cause#EXPECTATION_FAILED}),
 * an unexpected #GP ({@link Cause#REGISTER_FAULT}) or another failure of the simulated machine,
 * with the results of the commands before it. The message is one line, {@code ORIGIN:LINE: what}.
 *
 * @see ScenarioRunner
 */
public final class ScenarioException extends HwException {

    private final int line;
    private final transient List<StepResult> completed;
    private final Long expected;
    private final Long actual;

    ScenarioException(Cause cause, String message, int line, List<StepResult> completed, Long expected, Long actual) {
        super(cause, message);
        this.line = line;
        this.completed = List.copyOf(completed);
        this.expected = expected;
        this.actual = actual;
    }

    /** The line the scenario stopped at. */
    public int line() {
        return line;
    }

    /** The results of the commands that ran before it. */
    public List<StepResult> completed() {
        return completed;
    }

    /** For a failed {@code expect} with a value: what it expected, else null. */
    public Long expected() {
        return expected;
    }

    /** For a failed {@code expect} with a value: what the machine had, else null. */
    public Long actual() {
        return actual;
    }
}
