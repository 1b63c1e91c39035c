package dev.hwtool.linux.perf;

import dev.hwtool.arch.perf.abi.PerfUserPage;
import dev.hwtool.bind.MachineCode;

import java.util.Optional;

/**
 * Reads a counter of this thread without a system call where the kernel allows it: RDPMC through
 * the binding's machine-code stub, guarded by the event's user page (cap_user_rdpmc = 1 and
 * index != 0, {@link PerfUserPage.Snapshot#rdpmcAllowed()}); otherwise read(2) on the fd. The
 * stub is never executed unguarded: with CR4.PCE clear RDPMC raises #GP and the JVM dies
 * (SDM Vol. 2B, RDPMC: #GP(0) at CPL > 0 with CR4.PCE clear; docs/facts.md §2.1).
 */
public final class PerfSelfMonitor {

    /** How the last value was obtained. */
    public enum Path { RDPMC, READ }

    private final PerfEvent event;
    private final PerfUserPage page;
    private Path last;

    /** Over {@code event}'s ring (a mapping of 0 data pages is enough). */
    public PerfSelfMonitor(PerfMmapRing ring) {
        this.event = ring.event();
        this.page = ring.userPage();
    }

    /** Why RDPMC cannot be used for this event now, or empty when it can. */
    public Optional<String> rdpmcUnavailable() {
        if (!MachineCode.runsHere()) {
            return Optional.of("RDPMC is x86-64 code; this JVM runs on " + System.getProperty("os.arch"));
        }
        PerfUserPage.Snapshot s = page.snapshot();
        if (!s.capUserRdpmc()) {
            return Optional.of("the kernel does not let user space read this counter (cap_user_rdpmc = 0 in the perf"
                    + " user page; no hardware PMU, /sys/bus/event_source/devices/cpu/rdpmc = 0, or a software event)");
        }
        if (s.index() == 0) {
            return Optional.of("the event is not on a hardware counter now (index = 0 in the perf user page)");
        }
        return Optional.empty();
    }

    /** The counter value: RDPMC when the page allows it, else read(2). */
    public long read() {
        if (MachineCode.runsHere()) {
            Optional<PerfUserPage.SelfReading> r = page.selfRead(event.binding()::rdpmc, event.binding()::rdtsc);
            if (r.isPresent()) {
                last = Path.RDPMC;
                return r.get().value();
            }
        }
        last = Path.READ;
        return event.value();
    }

    /** The path of the last {@link #read()}, or null before the first. */
    public Path lastPath() {
        return last;
    }
}
