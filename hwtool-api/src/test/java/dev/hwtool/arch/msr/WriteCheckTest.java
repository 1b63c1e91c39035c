package dev.hwtool.arch.msr;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WriteCheckTest {

    private final CpuContext skylake = ShippedCpus.cpu("skylake.txt");

    private static MsrDef reg(String name) {
        return MsrCatalog.byName(name).orElseThrow();
    }

    @Test
    void legalWriteHasNoViolations() {
        assertEquals(List.of(), WriteCheck.check(reg("IA32_DEBUGCTL"), 1L | 1L << 11, skylake));
    }

    @Test
    void reservedBitsAreNamedWithTheirMask() {
        List<Violation> v = WriteCheck.check(reg("IA32_DEBUGCTL"), 1L | 1L << 2 | 1L << 40, skylake);
        assertEquals(1, v.size());
        assertEquals(Violation.Kind.RESERVED_BITS, v.get(0).kind());
        assertEquals(1L << 2 | 1L << 40, v.get(0).mask());
        assertEquals("IA32_DEBUGCTL (1D9H): reserved bits set on this CPU, mask 0x10000000004 (WRMSR #GP)",
                v.get(0).message());
    }

    @Test
    void readOnlyRegister() {
        List<Violation> v = WriteCheck.check(reg("IA32_PERF_GLOBAL_STATUS"), 0, skylake);
        assertEquals(List.of(Violation.Kind.READ_ONLY_REGISTER), v.stream().map(Violation::kind).toList());
        assertTrue(v.get(0).message().contains("IA32_PERF_GLOBAL_STATUS (38EH) is read-only"), v.get(0).message());
    }

    @Test
    void readOnlyFieldChangeNeedsTheOldValue() {
        MsrDef misc = reg("IA32_MISC_ENABLE");
        long old = 1L | 1L << 7 | 1L << 16;
        long flipped = old ^ (1L << 11);
        assertEquals(List.of(), WriteCheck.check(misc, flipped, skylake), "no old value: cannot tell");
        List<Violation> v = WriteCheck.check(misc, old, flipped, skylake);
        assertEquals(1, v.size());
        assertEquals(Violation.Kind.READ_ONLY_FIELD_CHANGED, v.get(0).kind());
        assertEquals(1L << 11, v.get(0).mask());
        assertEquals("IA32_MISC_ENABLE.BTS_UNAVAILABLE [11] is read-only: 0x0 -> 0x1", v.get(0).message());
        assertEquals(List.of(), WriteCheck.check(misc, old, old ^ 1L, skylake), "FAST_STRING is writable");
    }

    @Test
    void registerMissingOnThisCpu() {
        List<Violation> v = WriteCheck.check(reg("IA32_LBR_CTL"), 1, skylake);
        assertEquals(List.of(Violation.Kind.NOT_ON_THIS_CPU), v.stream().map(Violation::kind).toList());
        assertEquals("IA32_LBR_CTL (14CEH) does not exist on this CPU: needs CPUID.(07H,0):EDX[19] and"
                + " 8*fls(CPUID.1CH:EAX[7:0]) > 0", v.get(0).message());
        CpuContext amd = ShippedCpus.cpu("amd-epyc-kvm-guest.cpuid-r.txt");
        assertEquals(Violation.Kind.NOT_ON_THIS_CPU, WriteCheck.check(reg("IA32_PERF_GLOBAL_CTRL"), 0, amd).get(0).kind());
    }

    @Test
    void globalStatusResetAcceptsOnesForExistingStatusBitsOnly() {
        MsrDef reset = reg("IA32_PERF_GLOBAL_STATUS_RESET");
        long lbrFrz = 1L << 58;
        assertEquals(List.of(), WriteCheck.check(reset, lbrFrz | 0xF | 0x7L << 32, skylake), "v4: LBR_Frz");
        CpuContext nehalem = ShippedCpus.cpu("nehalem.txt");
        assertEquals(lbrFrz, WriteCheck.check(reset, lbrFrz, nehalem).get(0).mask(), "v3 has no LBR_Frz");
    }
}
