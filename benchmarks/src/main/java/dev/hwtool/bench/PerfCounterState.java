package dev.hwtool.bench;

import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.linux.perf.PerfEvent;
import dev.hwtool.linux.perf.PerfEvents;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * One binding ({@code ffm} or {@code jna}) and a task-clock event of the benchmark thread, opened
 * and enabled once per trial, with the attr the C reference (src/main/c/perf_loop.c, perfRead)
 * uses: software task-clock, pid 0, any CPU, user space only, read_format 0 (one u64).
 *
 * <p>The event counts the thread that opened it, so every iteration checks that JMH measures on
 * that thread: on another, the event would be inactive and a read skips the counter update,
 * which is cheaper and would flatter the figure.
 */
@State(Scope.Thread)
public class PerfCounterState {

    /** __NR_gettid, arch/x86/entry/syscalls/syscall_64.tbl. */
    static final long SYS_GETTID = 186;

    @Param({"ffm", "jna"})
    public String binding;

    NativeBinding nb;
    PerfEvents perf;
    PerfEvent taskClock;
    final byte[] word = new byte[8];
    private long tid;

    static PerfEventAttr taskClockAttr() {
        return PerfEventAttr.builder().type(PerfType.SOFTWARE).config(PerfCount.SW_TASK_CLOCK)
                .flag(PerfAttrFlag.DISABLED, PerfAttrFlag.EXCLUDE_KERNEL, PerfAttrFlag.EXCLUDE_HV).build();
    }

    @Setup(Level.Trial)
    public void open() {
        nb = Bindings.open(binding);
        perf = new PerfEvents(nb);
        taskClock = perf.openSelf(taskClockAttr());
        taskClock.enable();
        tid = nb.syscall(SYS_GETTID);
    }

    @Setup(Level.Iteration)
    public void onTheOpeningThread() {
        long now = nb.syscall(SYS_GETTID);
        if (now != tid) {
            throw new IllegalStateException("the event counts thread " + tid + " but JMH measures on " + now);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        perf.close();
        nb.close();
    }
}
