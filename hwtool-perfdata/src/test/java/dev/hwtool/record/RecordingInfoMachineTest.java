package dev.hwtool.record;

import dev.hwtool.arch.decode.IdentityDecoder;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** perf's get_cpuid string (tools/perf/arch/x86/util/header.c) and CPUDESC's squashing (header.c __write_cpudesc). */
class RecordingInfoMachineTest {

    @Test
    void perfCpuidOfKnownSignatures() {
        // Skylake i7-6700K: CPUID.1:EAX 0x506E3, family 6, model 0x5E, stepping 3
        assertEquals("GenuineIntel,6,94,3", RecordingInfo.Machine.perfCpuid("GenuineIntel", 0x000506E3));
        // Zen 3 EPYC: 0xA00F11, family 0xF + 0xA, model 0x01, stepping 1 (perf -v: AuthenticAMD-25-1-1)
        assertEquals("AuthenticAMD,25,1,1", RecordingInfo.Machine.perfCpuid("AuthenticAMD", 0x00A00F11));
        // Core 2: 0x6FB, family 6, model 0xF, stepping 11
        assertEquals("GenuineIntel,6,15,11", RecordingInfo.Machine.perfCpuid("GenuineIntel", 0x000006FB));
        // Pentium 4: family 0xF + 0, model 2 (extended model 0)
        assertEquals("GenuineIntel,15,2,9", RecordingInfo.Machine.perfCpuid("GenuineIntel", 0x00000F29));
    }

    /**
     * For Intel family 6 (every Core and Atom), perf's rule is the SDM's display family and model
     * (Vol. 2A, CPUID, Figure 3-6), which IdentityDecoder implements. (Elsewhere they part: perf adds
     * the extended model for every family from 6 up, the SDM only for 6 and 0xF.)
     */
    @Property
    void intelCpuidMatchesTheDisplayFamilyAndModel(@ForAll int anySignature) {
        int signature = (anySignature & ~0xF00) | 0x600;
        String[] f = RecordingInfo.Machine.perfCpuid("GenuineIntel", signature).split(",");
        assertEquals(IdentityDecoder.displayFamily(signature), Integer.parseInt(f[1]));
        assertEquals(IdentityDecoder.displayModel("GenuineIntel", signature), Integer.parseInt(f[2]));
        assertEquals(signature & 0xF, Integer.parseInt(f[3]));
    }

    @Test
    void cpuDescSquashesSpaceRuns() {
        assertEquals("Intel(R) Atom(TM) CPU N270 @ 1.60GHz",
                RecordingInfo.Machine.squash("         Intel(R) Atom(TM) CPU N270   @ 1.60GHz"));
    }

    @Test
    void cpuCountsAreChecked() {
        assertThrows(IllegalArgumentException.class, () -> new RecordingInfo.Machine("x86_64", 2, 4, "", "x", 0));
        assertThrows(IllegalArgumentException.class, () -> new RecordingInfo.Machine("x86_64", 0, 0, "", "x", 0));
    }
}
