/**
 * The programs the simulated CPU runs: deterministic workloads (loop nests, call trees, branch
 * traces read from a file) that retire instructions and taken branches in program order, each
 * with a real x86-64 {@link dev.hwtool.sim.workload.ProgramImage} (an ELF with symbols) whose
 * code at every branch's address decodes as the branch it retires. {@link dev.hwtool.sim.workload.Workloads}
 * parses the workload specs the CLI and scenario scripts share.
 */
package dev.hwtool.sim.workload;
