package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PerfCounts;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.linux.sys.HeldChild;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.perf.PerfEvent;
import dev.hwtool.linux.perf.PerfEvents;
import dev.hwtool.linux.perf.PerfPmus;
import dev.hwtool.linux.perf.RecordingAttrs;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The hardware backend of {@code hwtool stat}: one perf event per requested event on the
 * command's process, opened as perf stat opens them (tools/perf/builtin-stat.c,
 * create_perf_stat_counter): disabled, inherit (children count too), enable_on_exec (counting
 * starts at the command's exec), read_format TOTAL_TIME_ENABLED|TOTAL_TIME_RUNNING for the
 * multiplexing scale. Each event is its own group, so one unsupported event costs no other.
 *
 * <p>When the kernel refuses an event for counting kernel mode (EACCES at perf_event_paranoid 2
 * without CAP_PERFMON), it is retried user-only and shown with ":u", as perf's
 * evsel__fallback does.
 */
final class PerfEventCounter implements EventCounter {

    private final LinuxPlatform platform;
    private final PerfPmus pmus;

    PerfEventCounter(LinuxPlatform platform) {
        this.platform = platform;
        this.pmus = new PerfPmus(Path.of("/sys"), platform.perf().errors());
    }

    @Override
    public String backend() {
        return "hardware";
    }

    /**
     * The attr perf stat would use for {@code spec}, built by {@link RecordingAttrs#counting}, the
     * code caps' counter probe opens too; sysfs failures (no such PMU or event) throw.
     */
    PerfEventAttr attr(EventSpec spec) {
        return RecordingAttrs.counting(RecordingAttrs.event(spec, pmus).preciseIp(spec.precise()), spec.privilege());
    }

    /** An event to count: opened, or why not. */
    private record Slot(EventSpec spec, PerfEvent event, HwException failure) {
    }

    @Override
    public StatResult count(List<EventSpec> events, List<String> command) {
        PerfEvents perf = platform.perf();
        List<Slot> slots = new ArrayList<>();
        try (HeldChild child = HeldChild.start(platform.binding(), command)) {
            int pid = Math.toIntExact(child.pid());
            for (EventSpec spec : events) {
                slots.add(open(perf, spec, pid));
            }
            if (slots.stream().allMatch(s -> s.event() == null)) {
                HwException first = slots.getFirst().failure();
                throw new HwException(first.cause(), "no event could be counted; " + slots.getFirst().spec().text()
                        + ": " + first.getMessage(), first.remedy().orElse(null), first);
            }
            HeldChild.Ended end = child.run();
            List<EventCount> counts = new ArrayList<>();
            for (Slot s : slots) {
                counts.add(result(s));
            }
            return new StatResult(backend(), List.copyOf(command), counts, end.status(), end.elapsedNs());
        } finally {
            for (Slot s : slots) {
                if (s.event() != null) {
                    s.event().close();
                }
            }
        }
    }

    private Slot open(PerfEvents perf, EventSpec spec, int pid) {
        try {
            return new Slot(spec, perf.open(attr(spec), pid, -1, -1, 0), null);
        } catch (HwException e) {
            if (e.cause() == Cause.PERMISSION_DENIED && !spec.userOnly() && !spec.kernelOnly()) {
                EventSpec user = spec.userOnlyFallback();
                try {
                    return new Slot(user, perf.open(attr(user), pid, -1, -1, 0), null);
                } catch (HwException again) {
                    return new Slot(spec, null, e);
                }
            }
            return new Slot(spec, null, e);
        }
    }

    private static EventCount result(Slot s) {
        if (s.event() == null) {
            return EventCount.unsupported(s.spec(), s.failure().getMessage(), s.failure().remedy().orElse(null));
        }
        PerfCounts c = s.event().read();
        return new EventCount(s.spec().text(), s.spec(), true, c.value(), c.timeEnabled(), c.timeRunning(), null, null);
    }
}
