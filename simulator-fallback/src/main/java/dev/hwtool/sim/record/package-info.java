/**
 * Recording and counting on the simulated CPU as Linux would do them on hardware: a perf driver
 * that programs the simulated PMU, LBR and DS area with the values arch/x86/events/intel/*.c
 * writes for the same {@code perf_event_attr}, and the simulator's {@link dev.hwtool.api.Recorder}
 * and {@link dev.hwtool.api.Counters}, whose recordings carry what perf record writes.
 */
package dev.hwtool.sim.record;
