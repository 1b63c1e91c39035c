package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Decodes CPUID.0AH into {@link ArchPerfmon} (SDM Vol. 2A CPUID leaf 0AH; Vol. 3B 20.2;
 * SDM Vol. 3B, Architectural Performance Monitoring). {@link ArchPerfmon#NONE} when CPUID.0:EAX &lt; 0AH or the version is 0.
 *
 * <p>Fixed counters: EDX[4:0] and EDX[12:5] are defined only for version &gt; 1. From version 5
 * ECX is a bitmap of supported fixed counters, and the SDM rule is "fixed counter i is
 * supported if ECX[i] || (EDX[4:0] &gt; i)"; the count reported here is the size of that union,
 * so a counter enumerated either way is counted once.
 */
public final class ArchPerfmonDecoder {

    private static final int LEAF = 0xA;
    private static final int FIXED_BITMAP_VERSION = 5;

    private ArchPerfmonDecoder() {
    }

    public static ArchPerfmon decode(CpuidReader reader) {
        return decode(GuardedCpuid.over(reader));
    }

    static ArchPerfmon decode(GuardedCpuid c) {
        if (!c.has(LEAF)) {
            return ArchPerfmon.NONE;
        }
        int version = c.field(CpuidField.PERFMON_VERSION);
        if (version == 0) {
            return ArchPerfmon.NONE;
        }
        int fixed = 0;
        int fixedWidth = 0;
        if (version > 1) {
            int edxCount = c.field(CpuidField.PERFMON_FIXED_COUNTERS);
            fixedWidth = c.field(CpuidField.PERFMON_FIXED_WIDTH);
            int supported = edxCount >= 32 ? -1 : (1 << edxCount) - 1;
            if (version >= FIXED_BITMAP_VERSION) {
                supported |= c.field(CpuidField.PERFMON_FIXED_BITMAP);
            }
            fixed = Integer.bitCount(supported);
        }
        return new ArchPerfmon(version,
                c.field(CpuidField.PERFMON_GP_COUNTERS),
                c.field(CpuidField.PERFMON_GP_WIDTH),
                fixed, fixedWidth,
                events(c.field(CpuidField.PERFMON_EVENT_VECTOR_LENGTH),
                        c.field(CpuidField.PERFMON_EVENTS_UNAVAILABLE)));
    }

    /** Event i is available iff i &lt; EAX[31:24] (the EBX vector length) and EBX[i] is clear. */
    static Map<String, Boolean> events(int vectorLength, int unavailable) {
        Map<String, Boolean> m = new LinkedHashMap<>();
        for (ArchPerfmonEvent e : ArchPerfmonEvent.values()) {
            int i = e.bit();
            m.put(e.sdmName(), i < vectorLength && ((unavailable >>> i) & 1) == 0);
        }
        return Collections.unmodifiableMap(m);
    }
}
