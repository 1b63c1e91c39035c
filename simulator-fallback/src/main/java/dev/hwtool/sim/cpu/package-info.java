/**
 * The simulated machine: logical processors with their MSRs ({@link dev.hwtool.sim.cpu.RegisterFile}),
 * performance counters, the legacy and architectural LBR stacks, BTS and PEBS writing into the DS
 * area of simulated memory, and the PMI with the freeze rules of Intel SDM Vol. 3B chapter 17-20
 * (LBR_FRZ, FREEZE_PERFMON_ON_PMI, BTS_OFF_OS/USR).
 */
package dev.hwtool.sim.cpu;
