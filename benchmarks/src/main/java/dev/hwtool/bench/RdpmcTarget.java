package dev.hwtool.bench;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.linux.perf.PerfEvent;
import dev.hwtool.linux.perf.PerfEvents;
import dev.hwtool.linux.perf.PerfSelfMonitor;

import java.util.Optional;

/**
 * The rdpmc benchmark's subject: this thread's HARDWARE instructions event (user space only, the
 * attr of rdpmc in src/main/c/perf_loop.c) with its user page mapped, and a
 * {@link PerfSelfMonitor} over it, or the reason RDPMC cannot be measured here. The reason comes
 * from the same guards the library uses before it executes RDPMC (an open that fails, then
 * {@link PerfSelfMonitor#rdpmcUnavailable()}), so nothing here executes RDPMC unguarded.
 *
 * <p>{@link #main} prints the verdict for run.sh, which runs the benchmark only when it is
 * {@code available}: one line, {@code available} or {@code unavailable<TAB>reason}.
 */
public final class RdpmcTarget implements AutoCloseable {

    final NativeBinding nb;
    final PerfEvents perf;
    final PerfSelfMonitor monitor;
    final Optional<String> unavailable;

    private RdpmcTarget(NativeBinding nb, PerfEvents perf, PerfSelfMonitor monitor, Optional<String> unavailable) {
        this.nb = nb;
        this.perf = perf;
        this.monitor = monitor;
        this.unavailable = unavailable;
    }

    static PerfEventAttr instructionsAttr() {
        return PerfEventAttr.builder().type(PerfType.HARDWARE).config(PerfCount.HW_INSTRUCTIONS)
                .flag(PerfAttrFlag.EXCLUDE_KERNEL, PerfAttrFlag.EXCLUDE_HV).build();
    }

    /** Opens the event on {@code binding} ("ffm" or "jna"); never throws for a missing PMU or rdpmc. */
    static RdpmcTarget open(String binding) {
        NativeBinding nb = Bindings.open(binding);
        PerfEvents perf = new PerfEvents(nb);
        PerfEvent e;
        try {
            e = perf.openSelf(instructionsAttr());
        } catch (HwException x) {
            return new RdpmcTarget(nb, perf, null, Optional.of("perf_event_open of HARDWARE instructions: "
                    + x.getMessage()));
        }
        PerfSelfMonitor m = new PerfSelfMonitor(e.mmap(0));
        return new RdpmcTarget(nb, perf, m, m.rdpmcUnavailable());
    }

    @Override
    public void close() {
        perf.close();
        nb.close();
    }

    public static void main(String[] args) {
        try (RdpmcTarget t = open(args.length > 0 ? args[0] : "ffm")) {
            System.out.println(t.unavailable.map(r -> "unavailable\t" + r.replace('\t', ' ').replace('\n', ' '))
                    .orElse("available"));
        }
    }
}
