package dev.hwtool.api;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a platform can do, facility by facility, and why not: on hardware the verdicts
 * {@code hwtool caps} prints (from the same facts and the same probes), on the simulator what its
 * simulated CPU offers.
 *
 * @param kind      which platform was judged
 * @param describes which machine, in words ("this machine", "simulated CPU, profile skylake")
 * @param cpu       the judged CPU (the first CPU of the platform's CPUID source)
 * @param coreTypes per logical CPU, its hybrid core type ({@code CPUID.1AH}); empty unless hybrid
 * @param verdicts  one per {@link Facility}, in its order
 */
public record Capabilities(Platform.Kind kind, String describes, CpuIdentity cpu, Map<Integer, String> coreTypes,
                           List<Verdict> verdicts) {

    public Capabilities {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(describes, "describes");
        Objects.requireNonNull(cpu, "cpu");
        coreTypes = Collections.unmodifiableMap(new LinkedHashMap<>(coreTypes));
        verdicts = List.copyOf(verdicts);
    }

    /** The microarchitecture from the model tables, "unknown" rather than a guess. */
    public String microarchitecture() {
        return cpu.microarchitecture();
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
