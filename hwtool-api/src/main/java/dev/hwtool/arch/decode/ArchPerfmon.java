package dev.hwtool.arch.decode;

import java.util.Map;

/**
 * Architectural performance monitoring, CPUID leaf 0AH (SDM Vol. 3B 20.2).
 *
 * @param version        EAX[7:0]; 0 means no architectural perfmon
 * @param gpCounters     EAX[15:8], general-purpose counters per logical CPU
 * @param gpWidth        EAX[23:16], their width in bits
 * @param fixedCounters  EDX[4:0] (version > 1); from version 5 the number of fixed counters
 *                       i with ECX[i] || EDX[4:0] > i (the SDM rule: bitmap and count unite)
 * @param fixedWidth     EDX[12:5]
 * @param events         architectural event name → available (EBX bit clear and within
 *                       the EAX[31:24] vector length), in the SDM's order
 */
public record ArchPerfmon(int version, int gpCounters, int gpWidth, int fixedCounters, int fixedWidth,
                          Map<String, Boolean> events) {
    public static final ArchPerfmon NONE = new ArchPerfmon(0, 0, 0, 0, 0, Map.of());

    public boolean present() {
        return version > 0;
    }
}
