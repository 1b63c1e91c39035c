package dev.hwtool.sim.cpu;

/**
 * The model of the DS interrupt service routine: called when a simulated CPU takes a PMI,
 * after the branch or instruction that caused it has been recorded and the freeze rules
 * applied. It runs "at CPL 0" — it may read and write the CPU's MSRs and memory — but must
 * not retire anything on that CPU.
 */
@FunctionalInterface
public interface PmiHandler {
    void onPmi(SimulatedCpu cpu, Pmi pmi);
}
