/**
 * Scenario runs: a parsed {@link dev.hwtool.sim.script.Script} run command by command on a fresh
 * {@link dev.hwtool.sim.SimulatedPlatform}, each step's result, and how a script's {@code profile}
 * line is found. Apart from the scripts themselves ({@code dev.hwtool.sim.script}), which the
 * recorder below the platform reads too: only a run boots a platform.
 */
package dev.hwtool.sim.scenario;
