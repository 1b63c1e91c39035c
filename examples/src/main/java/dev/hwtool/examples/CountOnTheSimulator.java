package dev.hwtool.examples;

import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.arch.branch.BranchType;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.cpu.SimulatedCpu;

/** Task 3 on a simulated Skylake: the same Counters, counting what the simulated CPU retires. */
public final class CountOnTheSimulator {
    public static void main(String[] args) {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake"); Counters c = p.counters("instructions", "branches")) {
            SimulatedCpu cpu = p.machine().cpus().getFirst();
            c.start();
            cpu.instructions(1000, 3);
            cpu.branch(0x401000, 0x402000, BranchType.JCC, 3, false);
            Counts n = c.stop();
            System.out.println(p.description() + ": " + n.value("instructions") + " instructions, "
                    + n.value("branches") + " branches");
        }
    }
}
