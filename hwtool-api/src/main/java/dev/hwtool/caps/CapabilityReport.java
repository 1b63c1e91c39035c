package dev.hwtool.caps;

import dev.hwtool.api.Capabilities;
import dev.hwtool.api.CpuIdentity;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Verdict;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Identity;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * A platform's {@link Capabilities} with what they rest on, for a report that shows more than
 * the verdicts ({@code hwtool caps}, {@code doctor}, the exporter): the decoded CPU, on hardware
 * the kernel's facts, and what happened when the perf facilities were tried. The contract gives
 * users the verdicts only; these details are register knowledge and Linux facts, which the api
 * module exports to hwtool's own modules alone (issue 25).
 *
 * @param capabilities the verdicts, as {@link Platform#capabilities()} returns them
 * @param decoded      the judged CPU's CPUID decoded
 * @param linux        the kernel facts the verdicts rest on (/proc, /sys, /dev); empty on the simulator
 * @param probes       per perf facility, what happened when it was tried on this process (the very
 *                     perf_event_open its commands make); empty when nothing was tried
 */
public record CapabilityReport(Capabilities capabilities, CpuCapabilities decoded, Optional<LinuxFacts> linux,
                               Map<Facility, Probe> probes) {

    public CapabilityReport {
        Objects.requireNonNull(capabilities, "capabilities");
        Objects.requireNonNull(decoded, "decoded");
        Objects.requireNonNull(linux, "linux");
        probes = Map.copyOf(probes);
    }

    public static CapabilityReport of(Platform.Kind kind, String describes, CpuCapabilities decoded,
                                      Map<Integer, String> coreTypes, List<Verdict> verdicts,
                                      Optional<LinuxFacts> linux, Map<Facility, Probe> probes) {
        return new CapabilityReport(new Capabilities(kind, describes, identity(decoded), coreTypes, verdicts),
                decoded, linux, probes);
    }

    /**
     * The report of {@code platform}, one that reports it: hwtool's hardware platform. (The
     * simulator keeps its report inside its module: its platform is a type users name, and this
     * record's types are hwtool's own.)
     */
    public static CapabilityReport of(Platform platform) {
        if (platform instanceof Reporting r) {
            return r.capabilityReport();
        }
        throw new IllegalArgumentException(platform.getClass().getName() + " does not report what its capabilities rest on");
    }

    /** The contract's identity of a decoded CPU. */
    public static CpuIdentity identity(CpuCapabilities decoded) {
        Identity id = decoded.identity();
        return new CpuIdentity(id.vendor(), id.brand(), id.family(), id.model(), id.stepping(), id.signature(),
                decoded.microarchitecture().name(), decoded.hypervisor().present());
    }

    public Platform.Kind kind() {
        return capabilities.kind();
    }

    public String describes() {
        return capabilities.describes();
    }

    public Map<Integer, String> coreTypes() {
        return capabilities.coreTypes();
    }

    public List<Verdict> verdicts() {
        return capabilities.verdicts();
    }

    public Verdict verdict(Facility facility) {
        return capabilities.verdict(facility);
    }

    public boolean usable(Facility facility) {
        return capabilities.usable(facility);
    }

    /** The CPU's identity from CPUID leaf 0, 1 and the brand string. */
    public Identity cpu() {
        return decoded.identity();
    }

    /** What happened when {@code facility} was tried here, if it was. */
    public Optional<Probe> probe(Facility facility) {
        return Optional.ofNullable(probes.get(facility));
    }

    /** A platform that reports what its capabilities rest on: hwtool's hardware one. */
    public interface Reporting {
        CapabilityReport capabilityReport();
    }
}
