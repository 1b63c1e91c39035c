package dev.hwtool.sim.scenario;

import java.util.List;

/**
 * A scenario that ran to its end.
 *
 * @param origin       the script's name, as in messages
 * @param profile      the profile it ran on
 * @param cpus         the simulated CPUs
 * @param steps        one result per command, in order
 * @param expectations how many expect and expect-fault lines held
 */
public record ScenarioResult(String origin, String profile, List<Integer> cpus, List<StepResult> steps,
                             long expectations) {

    public ScenarioResult {
        cpus = List.copyOf(cpus);
        steps = List.copyOf(steps);
    }
}
