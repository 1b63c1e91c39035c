package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.BranchFilter;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.api.Facility;
import dev.hwtool.caps.Probe;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * Tries the perf facilities on this process the way the commands use them: each probe opens
 * (pid 0, any CPU) exactly the attr {@link RecordingAttrs} builds for that facility, closes it,
 * and reports what happened. {@link PerfRecorder} runs the same {@link #open} before it starts a
 * command, so the message {@code hwtool lbr record} fails with is the reason {@code hwtool caps}
 * gives.
 */
public final class PerfProbe {

    /** The LBR request the LBR probe opens: every branch, sampled every 100000 cycles. */
    public static final long LBR_PROBE_PERIOD = RecordRequest.Lbr.DEFAULT_PERIOD;
    public static final BranchFilter LBR_PROBE_FILTER = BranchFilter.ANY;

    private final PerfEvents perf;
    private final PerfPmus pmus;

    public PerfProbe(PerfEvents perf, PerfPmus pmus) {
        this.perf = Objects.requireNonNull(perf, "perf");
        this.pmus = Objects.requireNonNull(pmus, "pmus");
    }

    /** Probes through {@code perf}, with the PMUs of /sys. */
    public PerfProbe(PerfEvents perf) {
        this(perf, new PerfPmus(Path.of("/sys"), perf.errors()));
    }

    public PerfPmus pmus() {
        return pmus;
    }

    /** The LBR request {@link #lbr} opens. */
    public static RecordRequest.Lbr lbrRequest(Privilege p) {
        return new RecordRequest.Lbr(p, LBR_PROBE_FILTER, LBR_PROBE_PERIOD);
    }

    /** Branch-stack sampling as {@code hwtool lbr record} opens it. */
    public Probe lbr(Privilege p) {
        return probe(() -> RecordingAttrs.plan(lbrRequest(p), pmus));
    }

    /** Branch tracing of user mode as {@code hwtool bts record} opens it (intel_bts, else branches). */
    public Probe bts() {
        return probe(() -> RecordingAttrs.plan(new RecordRequest.Bts(Privilege.USER), pmus));
    }

    /**
     * Counting {@code instructions} as {@code hwtool stat} does: user and kernel, and when the
     * kernel refuses kernel mode (perf_event_paranoid), user mode alone, as stat falls back.
     */
    public Probe counters() {
        try {
            return countWith(Privilege.ALL);
        } catch (HwException e) {
            if (e.cause() != Cause.PERMISSION_DENIED) {
                return Probe.failed("instructions: " + e.getMessage(), e);
            }
            try {
                Probe user = countWith(Privilege.USER);
                return Probe.ok(user.detail() + " (kernel mode refused: " + e.getMessage() + ")");
            } catch (HwException again) {
                return Probe.failed("instructions:u: " + again.getMessage(), again);
            }
        }
    }

    private Probe countWith(Privilege p) {
        PerfEventAttr attr = RecordingAttrs.counters(p);
        try (PerfEvent e = open(attr)) {
            return Probe.ok("opened instructions" + RecordingAttrs.suffix(p) + " on this process (fd " + e.fd() + ")");
        }
    }

    /**
     * RDPMC: opens the counters attr as a self-monitoring event, maps its user page and asks the
     * page whether RDPMC may read it ({@link PerfSelfMonitor#rdpmcUnavailable()}); RDPMC itself
     * is never executed here.
     */
    public Probe rdpmc() {
        PerfEvent e;
        try {
            e = openSelfMonitoring(Privilege.ALL);
        } catch (HwException denied) {
            if (denied.cause() != Cause.PERMISSION_DENIED) {
                return Probe.failed("instructions: " + denied.getMessage(), denied);
            }
            try {
                e = openSelfMonitoring(Privilege.USER);
            } catch (HwException again) {
                return Probe.failed("instructions:u: " + again.getMessage(), again);
            }
        }
        try (PerfEvent event = e) {
            PerfMmapRing ring = event.mmap(0);
            Optional<String> why = new PerfSelfMonitor(ring).rdpmcUnavailable();
            if (why.isPresent()) {
                HwException x = new HwException(Cause.UNSUPPORTED, "RDPMC on a self-monitoring instructions event: "
                        + why.get(), "echo 1 | sudo tee /sys/bus/event_source/devices/cpu/rdpmc");
                return Probe.failed(x.getMessage(), x);
            }
            return Probe.ok("cap_user_rdpmc = 1 and index " + ring.userPage().snapshot().index()
                    + " in the user page of a self-monitoring instructions event");
        } catch (HwException x) {
            return Probe.failed(x.getMessage(), x);
        }
    }

    private PerfEvent openSelfMonitoring(Privilege p) {
        return open(RecordingAttrs.selfMonitoring(p));
    }

    /**
     * Precise sampling as {@code hwtool record -e cycles:p} opens it ({@link RecordingAttrs#pebsProbe}):
     * on Intel the kernel serves precise_ip through PEBS.
     */
    public Probe pebs() {
        return probe(() -> RecordingAttrs.plan(RecordingAttrs.pebsProbe(), pmus));
    }

    /** The five probes, keyed by the facility caps judges. */
    public Map<Facility, Probe> all() {
        Map<Facility, Probe> m = new EnumMap<>(Facility.class);
        m.put(Facility.LBR_PERF, lbr(Privilege.USER));
        m.put(Facility.BTS_PERF, bts());
        m.put(Facility.HW_COUNTERS, counters());
        m.put(Facility.RDPMC, rdpmc());
        m.put(Facility.PEBS_PERF, pebs());
        return m;
    }

    /**
     * Opens {@code planned} on this thread (pid 0, any CPU) and closes it at once: the check a
     * recorder makes before it starts anything.
     *
     * @throws HwException exactly as the probe of the same request reports it
     */
    public void check(RecordingAttrs.Planned planned) {
        open(planned).close();
    }

    /** The planned event on this thread; a failure names the intel_bts fallback when there was one. */
    PerfEvent open(RecordingAttrs.Planned planned) {
        try {
            return open(planned.attr());
        } catch (HwException e) {
            if (planned.fallback().isEmpty()) {
                throw e;
            }
            throw new HwException(e.cause(), planned.name() + ": " + e.getMessage() + " (used instead of "
                    + RecordingAttrs.INTEL_BTS + ": " + planned.fallback().get().getMessage() + ")",
                    e.remedy().orElse(null), e);
        }
    }

    private PerfEvent open(PerfEventAttr attr) {
        return perf.open(attr, 0, -1, -1, 0);
    }

    @FunctionalInterface
    private interface PlanSupplier {
        RecordingAttrs.Planned get();
    }

    private Probe probe(PlanSupplier plan) {
        RecordingAttrs.Planned p;
        try {
            p = plan.get();
        } catch (HwException e) {
            return Probe.failed(e.getMessage(), e);
        }
        try (PerfEvent e = open(p)) {
            return Probe.ok("opened " + p.name() + " on this process");
        } catch (HwException e) {
            return Probe.failed(e.getMessage(), e);
        }
    }
}
