package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;

/**
 * Hybrid parts: CPUID.(07H,0):EDX[15] says the package mixes core types; CPUID.1AH:EAX[31:24]
 * (present when CPUID.0:EAX ≥ 1AH) says which type this logical CPU is — 20H Atom (E-core),
 * 40H Core (P-core) (SDM Vol. 2A CPUID leaf 1AH; Linux intel-family.h enum intel_cpu_type).
 */
public final class HybridDecoder {

    public static final int CORE_TYPE_ATOM = 0x20;
    public static final int CORE_TYPE_CORE = 0x40;

    private static final int LEAF_CORE_TYPE = 0x1A;

    private HybridDecoder() {
    }

    public static boolean isHybrid(CpuidReader reader) {
        return isHybrid(GuardedCpuid.over(reader));
    }

    /**
     * This CPU's core type: "Atom" (E-core), "Core" (P-core), "unknown (0xNN)", or "" when the
     * CPU is not hybrid, has no leaf 1AH, or leaves the type 0 (not enumerated — e.g. in a VM).
     */
    public static String coreType(CpuidReader reader) {
        return coreType(GuardedCpuid.over(reader));
    }

    /**
     * Per logical CPU, its core type ({@link #coreType(CpuidReader)}, read on that CPU); empty
     * when {@code first} (any CPU's decoding) is not hybrid: a hybrid report lists every CPU.
     */
    public static java.util.Map<Integer, String> coreTypes(CpuCapabilities first, java.util.List<Integer> cpus,
                                                           java.util.function.IntFunction<CpuidReader> readers) {
        java.util.Map<Integer, String> types = new java.util.LinkedHashMap<>();
        if (first.hybrid()) {
            for (int n : cpus) {
                types.put(n, coreType(readers.apply(n)));
            }
        }
        return types;
    }

    static boolean isHybrid(GuardedCpuid cpuid) {
        return cpuid.flag(CpuidBit.HYBRID);
    }

    static String coreType(GuardedCpuid cpuid) {
        if (!isHybrid(cpuid) || !cpuid.has(LEAF_CORE_TYPE)) {
            return "";
        }
        return coreTypeName(cpuid.field(CpuidField.CORE_TYPE));
    }

    /** The name of a CPUID.1AH:EAX[31:24] value. */
    public static String coreTypeName(int type) {
        return switch (type) {
            case 0 -> "";
            case CORE_TYPE_ATOM -> "Atom";
            case CORE_TYPE_CORE -> "Core";
            default -> String.format("unknown (0x%02X)", type);
        };
    }
}
