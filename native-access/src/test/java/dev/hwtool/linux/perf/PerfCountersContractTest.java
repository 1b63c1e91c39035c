package dev.hwtool.linux.perf;

import dev.hwtool.api.CountersContract;
import dev.hwtool.api.Platform;

/**
 * The counters contract on this machine's kernel, through {@link Platform#open()}: task-clock (a
 * software event every kernel counts) over CPU time spent on this thread; whether hardware
 * events count is what {@code capabilities()} says (here, without a PMU: not, with its cause).
 */
class PerfCountersContractTest extends CountersContract {

    @Override
    protected Platform open() {
        return Platform.open();
    }

    @Override
    protected void region(Platform p, int size) {
        PerfCountersTest.spin(size * 5_000_000L);
    }

    @Override
    protected String countedEvent() {
        return "task-clock";
    }

    /** A PMU no kernel registers: the open fails with the missing PMU's explanation. */
    @Override
    protected String neverCountedEvent() {
        return "hwtool_no_such_pmu/cycles/";
    }
}
