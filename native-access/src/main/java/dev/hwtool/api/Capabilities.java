package dev.hwtool.api;

import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.Probe;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What a platform can do, facility by facility, and why not: on hardware the verdicts
 * {@code hwtool caps} prints (from the same facts and the same probes), on the simulator what its
 * simulated CPU offers. Besides the verdicts it carries what they rest on, so that a report (the
 * CLI's {@code caps} is one) needs nothing else: the decoded CPU, and on hardware the kernel's
 * facts and what happened when the perf facilities were tried.
 *
 * @param kind      which platform was judged
 * @param describes which machine, in words ("this machine", "simulated CPU, profile skylake")
 * @param decoded   the judged CPU's CPUID decoded (the first CPU of the platform's CPUID source)
 * @param coreTypes per logical CPU, its hybrid core type ({@code CPUID.1AH}); empty unless hybrid
 * @param verdicts  one per {@link Facility}, in its order
 * @param linux     the kernel facts the verdicts rest on (/proc, /sys, /dev); empty on the simulator
 * @param probes    per perf facility, what happened when it was tried on this process (the very
 *                  perf_event_open its commands make); empty when nothing was tried
 */
public record Capabilities(Platform.Kind kind, String describes, CpuCapabilities decoded,
                           Map<Integer, String> coreTypes, List<Verdict> verdicts,
                           Optional<LinuxFacts> linux, Map<Facility, Probe> probes) {

    public Capabilities {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(describes, "describes");
        Objects.requireNonNull(decoded, "decoded");
        coreTypes = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(coreTypes));
        verdicts = List.copyOf(verdicts);
        Objects.requireNonNull(linux, "linux");
        probes = Map.copyOf(probes);
    }

    /** The CPU's identity from CPUID leaf 0, 1 and the brand string. */
    public Identity cpu() {
        return decoded.identity();
    }

    /** The microarchitecture from the model tables, "unknown" rather than a guess. */
    public String microarchitecture() {
        return decoded.microarchitecture().name();
    }

    /** The verdict on {@code facility}. */
    public Verdict verdict(Facility facility) {
        return verdicts.stream().filter(v -> v.facility() == facility).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no verdict on " + facility));
    }

    /** Whether {@code facility} is usable. */
    public boolean usable(Facility facility) {
        return verdict(facility).usable();
    }

    /** What happened when {@code facility} was tried here, if it was. */
    public Optional<Probe> probe(Facility facility) {
        return Optional.ofNullable(probes.get(facility));
    }
}
