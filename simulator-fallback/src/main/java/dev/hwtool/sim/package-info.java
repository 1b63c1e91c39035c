/**
 * The simulator as a {@link dev.hwtool.api.Platform}: {@link dev.hwtool.sim.SimulatedPlatform}
 * runs the same contract as the Linux backend on a simulated CPU built from a CPUID dump or a
 * named profile ({@link dev.hwtool.sim.Profiles}: Core 2 to Alder Lake), faithful to the Intel
 * SDM, with a journal of its own. It is the test double for code written against the contract,
 * and native-access's {@code dev.hwtool.devcpu.DevCpuTree} serves its MSRs as a {@code /dev/cpu}
 * tree for tools such as rdmsr.
 */
package dev.hwtool.sim;
