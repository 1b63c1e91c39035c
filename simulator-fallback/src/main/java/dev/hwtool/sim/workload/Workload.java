package dev.hwtool.sim.workload;

/**
 * A program the simulated CPU runs: a deterministic stream of retirements. The same
 * parameters (seeds included) give exactly the same sequence of calls on the sink, so a
 * scenario that fails can be replayed bit for bit. Built by {@link Workloads#parse} from the
 * spec grammar that scripts and the CLI share, or directly from the records.
 */
public sealed interface Workload permits LoopWorkload, CallTreeWorkload, TraceWorkload {

    /** Drives the whole workload into {@code cpu}, in program order. */
    void run(Retirement cpu);

    /** One line that {@link Workloads#parse} turns back into an equal workload, e.g. "loop seed=1 iterations=1000 body=8 base=0x401000 cpl=3". */
    String describe();
}
