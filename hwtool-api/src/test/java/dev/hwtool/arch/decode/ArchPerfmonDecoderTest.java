package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static dev.hwtool.arch.decode.Dumps.leaf;
import static dev.hwtool.arch.decode.Dumps.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;

class ArchPerfmonDecoderTest {

    private static final List<String> SDM_ORDER = List.of(
            "core cycles", "instructions retired", "reference cycles", "LLC references", "LLC misses",
            "branch instructions retired", "branch mispredicts retired", "top-down slots",
            "top-down backend bound", "top-down bad speculation", "top-down frontend bound",
            "top-down retiring", "LBR inserts");

    /** Availability of the first {@code n} events, the rest false. */
    private static void assertFirstAvailable(int n, Map<String, Boolean> events, String... missing) {
        assertEquals(SDM_ORDER, List.copyOf(events.keySet()));
        List<String> gone = List.of(missing);
        for (int i = 0; i < SDM_ORDER.size(); i++) {
            String e = SDM_ORDER.get(i);
            assertEquals(i < n && !gone.contains(e), events.get(e), e);
        }
    }

    @Test
    void core2() {
        // 0AH: EAX 07280202, EDX 00000503
        ArchPerfmon p = ArchPerfmonDecoder.decode(Dumps.core2());
        assertEquals(2, p.version());
        assertEquals(2, p.gpCounters());
        assertEquals(40, p.gpWidth());
        assertEquals(3, p.fixedCounters());
        assertEquals(40, p.fixedWidth());
        assertFirstAvailable(7, p.events());
    }

    @Test
    void bonnellReportsOneFixedCounter() {
        // 0AH: EAX 07280203, EDX 00002501 — CPUID says 1 fixed counter (Linux assumes 3 for v2..v4).
        ArchPerfmon p = ArchPerfmonDecoder.decode(Dumps.bonnell());
        assertEquals(new ArchPerfmon(3, 2, 40, 1, 40, p.events()), p);
        assertFirstAvailable(7, p.events());
    }

    @Test
    void nehalemLacksReferenceCyclesAndMispredicts() {
        // 0AH: EAX 07300403, EBX 00000044 (bits 2 and 6), EDX 00000603
        ArchPerfmon p = ArchPerfmonDecoder.decode(Dumps.nehalem());
        assertEquals(new ArchPerfmon(3, 4, 48, 3, 48, p.events()), p);
        assertFirstAvailable(7, p.events(), "reference cycles", "branch mispredicts retired");
    }

    @Test
    void skylakeAndGoldmont() {
        for (CpuidSnapshot s : new CpuidSnapshot[] {Dumps.skylake(), Dumps.goldmont(), Dumps.goldmontPlus()}) {
            ArchPerfmon p = ArchPerfmonDecoder.decode(s);
            assertEquals(new ArchPerfmon(4, 4, 48, 3, 48, p.events()), p);
            assertFirstAvailable(7, p.events());
        }
    }

    @Test
    void iceLakeVersion5WithTopDownSlots() {
        // 0AH: EAX 08300805, ECX 0000000F, EDX 00008604
        ArchPerfmon p = ArchPerfmonDecoder.decode(Dumps.icelake());
        assertEquals(new ArchPerfmon(5, 8, 48, 4, 48, p.events()), p);
        assertFirstAvailable(8, p.events());
    }

    @Test
    void alderLakeVersion5() {
        // 0AH: EAX 07300605, ECX 00000007, EDX 00008603: vector length 7, so no top-down slots.
        for (CpuidSnapshot s : new CpuidSnapshot[] {Dumps.alderlakePCore(), Dumps.alderlakeECore()}) {
            ArchPerfmon p = ArchPerfmonDecoder.decode(s);
            assertEquals(new ArchPerfmon(5, 6, 48, 3, 48, p.events()), p);
            assertFirstAvailable(7, p.events());
        }
    }

    @Test
    void amdGuestHasNone() {
        assertEquals(ArchPerfmon.NONE, ArchPerfmonDecoder.decode(Dumps.epycKvmGuest()));
    }

    @Test
    void fixedCounterBitmapUnionsWithEdxCount() {
        // v5, EDX[4:0] = 2 (counters 0,1), ECX bitmap 1001b (counters 0,3): supported {0,1,3}.
        ArchPerfmon p = ArchPerfmonDecoder.decode(perfmon(0x07300805, 0, 0b1001, 2 | 48 << 5));
        assertEquals(3, p.fixedCounters());
        // v5, EDX[4:0] = 3, ECX bitmap 11111b: five.
        assertEquals(5, ArchPerfmonDecoder.decode(perfmon(0x07300805, 0, 0b11111, 3 | 48 << 5)).fixedCounters());
        // v4: ECX is reserved and ignored.
        assertEquals(2, ArchPerfmonDecoder.decode(perfmon(0x07300804, 0, 0b11111, 2 | 48 << 5)).fixedCounters());
    }

    @Test
    void version1HasNoFixedCounters() {
        ArchPerfmon p = ArchPerfmonDecoder.decode(perfmon(0x07280201, 0, 0, 0x00000503));
        assertEquals(new ArchPerfmon(1, 2, 40, 0, 0, p.events()), p);
    }

    @Test
    void leafAOutOfRangeIsNone() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x9, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x9, 0x07300404, 0, 0, 0x603),
                leaf(0xA, 0x07300404, 0, 0, 0x603));
        assertEquals(ArchPerfmon.NONE, ArchPerfmonDecoder.decode(s));
        assertEquals(ArchPerfmon.NONE, ArchPerfmonDecoder.decode(new IntelOutOfRange(s)));
    }

    private static CpuidSnapshot perfmon(int eax, int ebx, int ecx, int edx) {
        return snapshot(leaf(0x0, 0xA, 0x756E6547, 0x6C65746E, 0x49656E69), leaf(0xA, eax, ebx, ecx, edx));
    }
}
