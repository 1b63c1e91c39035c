package dev.hwtool.api;

import dev.hwtool.arch.decode.Identity;

import java.util.List;
import java.util.Objects;

/**
 * What a platform can do, facility by facility, and why not: on hardware the verdicts
 * {@code hwtool caps} prints (from the same facts and the same probes), on the simulator what its
 * simulated CPU offers.
 *
 * @param kind              which platform was judged
 * @param describes         which machine, in words ("this machine", "simulated CPU, profile skylake")
 * @param cpu               the CPU's identity from CPUID leaf 0, 1 and the brand string
 * @param microarchitecture from the model tables, "unknown" rather than a guess
 * @param verdicts          one per {@link Facility}, in its order
 */
public record Capabilities(Platform.Kind kind, String describes, Identity cpu, String microarchitecture,
                           List<Verdict> verdicts) {

    public Capabilities {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(cpu, "cpu");
        verdicts = List.copyOf(verdicts);
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
}
