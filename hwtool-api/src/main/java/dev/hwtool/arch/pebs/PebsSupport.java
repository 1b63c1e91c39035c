package dev.hwtool.arch.pebs;

import dev.hwtool.arch.decode.Identity;

import java.util.Optional;
import java.util.Set;

/**
 * Which Intel family-6 models have PEBS, in which record format and flavour. CPUID does not
 * enumerate PEBS: Linux enables it from CPUID.01H:EDX[21] (DS) and IA32_MISC_ENABLE[12] clear
 * (arch/x86/kernel/cpu/intel.c), learns the format from IA32_PERF_CAPABILITIES.PEBS_FMT
 * (intel_ds_init in arch/x86/events/intel/ds.c, which prints "PEBS fmtN+" with '+' for PEBS_TRAP)
 * and which counters may take PEBS events from per-model constraint tables in core.c/ds.c. CPUID
 * dumps carry no MSRs, so this table is what the simulator reports and what the MSR catalog uses
 * for the per-model bits of IA32_PEBS_ENABLE. Models from Linux intel-family.h.
 */
public final class PebsSupport {

    /** One model's PEBS: the PEBS_FMT, PEBS_TRAP (record after the instruction) and PEBS_BASELINE (adaptive). */
    public record Flavour(int format, boolean trap, boolean baseline) {
    }

    /** Core (Merom, Penryn, Dunnington): format 0, fault-like ("PEBS fmt0-"). */
    public static final Set<Integer> CORE = Set.of(0x0F, 0x16, 0x17, 0x1D);
    /** Bonnell, Saltwell: format 0, trap-like. */
    public static final Set<Integer> BONNELL = Set.of(0x1C, 0x26, 0x27, 0x35, 0x36);
    /** Nehalem, Westmere: format 1. */
    public static final Set<Integer> NEHALEM = Set.of(0x1A, 0x1E, 0x1F, 0x2E, 0x25, 0x2C, 0x2F);
    /** Sandy Bridge, Ivy Bridge: format 1, with the precise-store enable (IA32_PEBS_ENABLE[63]). */
    public static final Set<Integer> SANDY_BRIDGE = Set.of(0x2A, 0x2D, 0x3A, 0x3E);
    /** Haswell, Broadwell: format 2. */
    public static final Set<Integer> HASWELL = Set.of(0x3C, 0x3F, 0x45, 0x46, 0x3D, 0x47, 0x4F, 0x56);
    /** Silvermont, Airmont: format 2. */
    public static final Set<Integer> SILVERMONT = Set.of(0x37, 0x4A, 0x4D, 0x5A, 0x5D, 0x4C);
    /** Skylake and its derivatives (Kaby/Coffee/Comet Lake, Skylake-X, Cannon Lake): format 3. */
    public static final Set<Integer> SKYLAKE = Set.of(0x4E, 0x5E, 0x55, 0x8E, 0x9E, 0xA5, 0xA6, 0x66);
    /** Goldmont, Goldmont Plus: format 3. */
    public static final Set<Integer> GOLDMONT = Set.of(0x5C, 0x5F, 0x7A);
    /** Ice Lake, Tiger Lake, Alder Lake, Raptor Lake: adaptive PEBS, format 4 ("PEBS fmt4+-baseline"). */
    public static final Set<Integer> ADAPTIVE = Set.of(0x7D, 0x7E, 0x6A, 0x6C, 0xA7, 0x8C, 0x8D,
            0x97, 0x9A, 0xB7, 0xBA, 0xBF);

    /** Models whose PEBS events run on IA32_PMC0 only (Linux core2/atom/slm PEBS constraints: counter mask 0x1). */
    public static final Set<Integer> PMC0_ONLY = union(CORE, BONNELL, SILVERMONT);
    /** Models with load-latency PEBS on IA32_PEBS_ENABLE[35:32] (Linux INTEL_UEVENT_PEBS_LDLAT_EXTRA_REG, version &lt; 5). */
    public static final Set<Integer> LOAD_LATENCY_ENABLES = union(NEHALEM, SANDY_BRIDGE, HASWELL, SKYLAKE);
    /** Models with MSR_PEBS_LD_LAT_THRESHOLD (3F6H). */
    public static final Set<Integer> LOAD_LATENCY_THRESHOLD = union(LOAD_LATENCY_ENABLES, ADAPTIVE);
    /** Every model with PEBS. */
    public static final Set<Integer> ALL = union(CORE, BONNELL, NEHALEM, SANDY_BRIDGE, HASWELL, SILVERMONT,
            SKYLAKE, GOLDMONT, ADAPTIVE);

    private PebsSupport() {
    }

    /** The model's PEBS, or empty for a CPU without (any non-Intel or unlisted model). */
    public static Optional<Flavour> of(Identity id) {
        if (!id.isIntel() || id.family() != 6 || !ALL.contains(id.model())) {
            return Optional.empty();
        }
        int m = id.model();
        if (CORE.contains(m)) {
            return Optional.of(new Flavour(0, false, false));
        }
        if (BONNELL.contains(m)) {
            return Optional.of(new Flavour(0, true, false));
        }
        if (NEHALEM.contains(m) || SANDY_BRIDGE.contains(m)) {
            return Optional.of(new Flavour(1, true, false));
        }
        if (HASWELL.contains(m) || SILVERMONT.contains(m)) {
            return Optional.of(new Flavour(2, true, false));
        }
        if (SKYLAKE.contains(m) || GOLDMONT.contains(m)) {
            return Optional.of(new Flavour(3, true, false));
        }
        return Optional.of(new Flavour(4, true, true));
    }

    @SafeVarargs
    private static Set<Integer> union(Set<Integer>... sets) {
        java.util.Set<Integer> all = new java.util.HashSet<>();
        for (Set<Integer> s : sets) {
            all.addAll(s);
        }
        return Set.copyOf(all);
    }
}
