package dev.hwtool.examples;

import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.sim.SimulatedPlatform;

/**
 * Task 3 on a simulated Skylake: the same Counters, counting what the simulated CPU retires
 * while a workload runs on it. (The caller's own Java code runs on the host, not on the simulated
 * CPU: a region without simulated work is "not counted", never zero.)
 */
public final class CountOnTheSimulator {
    public static void main(String[] args) {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake"); Counters c = p.counters("instructions", "branches")) {
            c.start();
            SimulatedPlatform.Ran ran = p.run("loop iterations=100 body=8");
            Counts n = c.stop();
            System.out.println(p.description() + ": " + n.value("instructions") + " instructions, "
                    + n.value("branches") + " branches (" + ran.workload() + " retired " + ran.instructions() + ")");
        }
    }
}
