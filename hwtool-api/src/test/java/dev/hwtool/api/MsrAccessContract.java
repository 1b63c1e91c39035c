package dev.hwtool.api;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.caps.CpuidReading;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The behaviour every {@link MsrAccess} that can read and write must have, whatever is behind
 * it: the msr driver on real hardware (or in a QEMU guest) or the simulator. Each backend runs
 * it by subclassing, as Netty's transports share one test suite. Nothing here assumes a
 * simulator: what a register must hold is derived from the same machine's CPUID, and every
 * write is undone.
 */
public abstract class MsrAccessContract {

    /** Architectural MSR indices used here (SDM Vol. 4, Table 2-2). */
    static final int IA32_TIME_STAMP_COUNTER = 0x10;
    static final int IA32_APIC_BASE = 0x1B;
    static final int IA32_TSC_AUX = 0xC0000103;

    /** IA32_APIC_BASE (SDM Vol. 3A 11.4.4, Figure 11-5): BSP flag, APIC global enable, base. */
    static final long APIC_BASE_BSP = 1L << 8;
    static final long APIC_BASE_ENABLE = 1L << 11;
    static final long APIC_BASE_ADDRESS = 0x000F_FFFF_FFFF_F000L; // bits [MAXPHYADDR-1:12], at most 51:12
    static final long APIC_DEFAULT_BASE = 0xFEE0_0000L;

    /** IA32_TSC_AUX[31:0] is the auxiliary signature; bits 63:32 are reserved (SDM Vol. 4, Table 2-2). */
    static final long TSC_AUX_RESERVED_BIT = 1L << 40;

    /** A fresh MSR access for one test; closed by the test. */
    protected abstract MsrAccess msr();

    /** The CPUID of the same machine, to know which registers must exist. */
    protected abstract CpuidReading cpuid();

    @Test
    void cpusAreAscendingDistinctAndNonEmpty() {
        try (MsrAccess m = msr()) {
            List<Integer> cpus = m.cpus();
            assertFalse(cpus.isEmpty());
            assertTrue(cpus.getFirst() >= 0);
            for (int i = 1; i < cpus.size(); i++) {
                assertTrue(cpus.get(i - 1) < cpus.get(i), "ascending and distinct: " + cpus);
            }
        }
    }

    /**
     * Whether RDMSR of IA32_TIME_STAMP_COUNTER shows the counter running: true on hardware and
     * the simulator. A backend whose CPU is an emulator that does not implement the MSR says
     * false (QEMU's TCG answers RDMSR of 0x10 with 0, as for every MSR it does not know); the
     * register must then read exactly 0 on every CPU, so a backend returning anything else
     * still fails.
     */
    protected boolean tscAdvancesThroughTheRegister() {
        return true;
    }

    @Test
    void timeStampCounterStrictlyIncreasesBetweenTwoReads() {
        // SDM Vol. 3B 17.17: the TSC increments on every clock (or at a constant rate); two
        // RDMSRs are separated by at least the first one's execution time.
        boolean advances = tscAdvancesThroughTheRegister();
        try (MsrAccess m = msr()) {
            for (int cpu : m.cpus()) {
                long first = m.read(cpu, IA32_TIME_STAMP_COUNTER);
                long second = m.read(cpu, IA32_TIME_STAMP_COUNTER);
                String reads = "CPU " + cpu + ": " + Long.toUnsignedString(first) + " then " + Long.toUnsignedString(second);
                if (advances) {
                    assertTrue(Long.compareUnsigned(second, first) > 0, reads);
                } else {
                    assertTrue(first == 0 && second == 0, reads + ", but this backend's CPU was declared to read"
                            + " the MSR as 0; if it now runs, the emulator implements it: drop the declaration");
                }
            }
        }
    }

    @Test
    void apicBaseIsEnabledAtTheDefaultBaseAndOneCpuIsTheBsp() {
        // SDM Vol. 3A 11.4.4: BSP flag set only on the bootstrap processor; an OS that uses the
        // local APIC keeps it globally enabled at the power-up base FEE00000H.
        try (MsrAccess m = msr()) {
            int bsps = 0;
            for (int cpu : m.cpus()) {
                long v = m.read(cpu, IA32_APIC_BASE);
                assertTrue((v & APIC_BASE_ENABLE) != 0, "CPU " + cpu + " APIC enabled: 0x" + Long.toHexString(v));
                assertEquals(APIC_DEFAULT_BASE, v & APIC_BASE_ADDRESS, "CPU " + cpu + " APIC base: 0x" + Long.toHexString(v));
                if ((v & APIC_BASE_BSP) != 0) {
                    bsps++;
                }
            }
            // With CPUs offline or restricted, the BSP may be absent from the list, never doubled.
            assertTrue(bsps <= 1, bsps + " CPUs claim to be the BSP");
            if (m.cpus().contains(0)) {
                assertEquals(1, bsps, "Linux's CPU 0 is the BSP, so exactly one CPU has the BSP flag");
            }
        }
    }

    @Test
    void aCpuThatDoesNotExistIsNoSuchCpu() {
        try (MsrAccess m = msr()) {
            int missing = m.cpus().getLast() + 1000;
            HwException r = assertThrows(HwException.class, () -> m.read(missing, IA32_TIME_STAMP_COUNTER));
            assertEquals(Cause.NO_SUCH_CPU, r.cause(), r.getMessage());
            assertTrue(r.getMessage().contains(Integer.toString(missing)), r.getMessage());
            HwException w = assertThrows(HwException.class, () -> m.write(missing, IA32_TSC_AUX, 0));
            assertEquals(Cause.NO_SUCH_CPU, w.cause(), w.getMessage());
        }
    }

    @Test
    void tscAuxWrittenReadsBackAndIsRestored() {
        // Every CPU: on hybrid parts the core types are separate register files.
        try (MsrAccess m = msr()) {
            if (!hasTscAux(m.cpus().getFirst())) {
                tscAuxIsAbsent(m);
                return;
            }
            for (int cpu : m.cpus()) {
                long old = m.read(cpu, IA32_TSC_AUX);
                long probe = (old ^ 0x5A5A_0000L) & 0xFFFF_FFFFL;
                try {
                    m.write(cpu, IA32_TSC_AUX, probe);
                    assertEquals(probe, m.read(cpu, IA32_TSC_AUX), "CPU " + cpu);
                } finally {
                    m.write(cpu, IA32_TSC_AUX, old);
                }
                assertEquals(old, m.read(cpu, IA32_TSC_AUX), "CPU " + cpu + " restored");
            }
        }
    }

    /**
     * Without RDTSCP and RDPID (CPUID.80000001H:EDX[27], CPUID.(EAX=07H,ECX=0):ECX[22]) there is no
     * IA32_TSC_AUX (SDM Vol. 4, Table 2-2: "If CPUID.80000001H:EDX[27] = 1 or
     * CPUID.(EAX=7,ECX=0):ECX[22] = 1"): RDMSR and WRMSR of it fault (#GP), and the fault leaves
     * nothing written.
     */
    private static void tscAuxIsAbsent(MsrAccess m) {
        for (int cpu : m.cpus()) {
            HwException r = assertThrows(HwException.class, () -> m.read(cpu, IA32_TSC_AUX), "CPU " + cpu);
            assertEquals(Cause.REGISTER_FAULT, r.cause(), r.getMessage());
            HwException w = assertThrows(HwException.class, () -> m.write(cpu, IA32_TSC_AUX, 1), "CPU " + cpu);
            assertEquals(Cause.REGISTER_FAULT, w.cause(), w.getMessage());
        }
    }

    /**
     * Whether WRMSR of IA32_TSC_AUX honours its reserved bits 63:32 (Intel faults, AMD drops
     * them): true on hardware and the simulator. A backend whose CPU is an emulator that stores
     * all 64 bits says false (QEMU's TCG); a write with a reserved bit must then read back
     * exactly as written and the old value be restored, so a backend that garbles the value
     * still fails.
     */
    protected boolean tscAuxReservedBitsAreHonoured() {
        return true;
    }

    @Test
    void tscAuxReservedBitIsAFaultOnIntelAndNeverChangesTheValue() {
        boolean honoured = tscAuxReservedBitsAreHonoured();
        try (MsrAccess m = msr()) {
            if (!hasTscAux(m.cpus().getFirst())) {
                tscAuxIsAbsent(m);
                return;
            }
            for (int cpu : m.cpus()) {
                if (honoured) {
                    reservedTscAuxBitLeavesTheValue(m, cpu);
                } else {
                    reservedTscAuxBitIsStoredAsWritten(m, cpu);
                }
            }
        }
    }

    private void reservedTscAuxBitIsStoredAsWritten(MsrAccess m, int cpu) {
        long old = m.read(cpu, IA32_TSC_AUX);
        try {
            m.write(cpu, IA32_TSC_AUX, old | TSC_AUX_RESERVED_BIT);
            long read = m.read(cpu, IA32_TSC_AUX);
            assertEquals(old | TSC_AUX_RESERVED_BIT, read, "CPU " + cpu + ": this backend's CPU was declared to store"
                    + " bits 63:32 as written; if it faults or drops them now, the emulator honours them: drop the declaration");
        } finally {
            m.write(cpu, IA32_TSC_AUX, old);
        }
        assertEquals(old, m.read(cpu, IA32_TSC_AUX), "CPU " + cpu + " restored");
    }

    private void reservedTscAuxBitLeavesTheValue(MsrAccess m, int cpu) {
        long old = m.read(cpu, IA32_TSC_AUX);
        try {
            if (isIntel(cpu)) {
                // Intel: bits 63:32 reserved, WRMSR with one set → #GP(0) → EIO.
                HwException e = assertThrows(HwException.class,
                        () -> m.write(cpu, IA32_TSC_AUX, old | TSC_AUX_RESERVED_BIT));
                assertEquals(Cause.REGISTER_FAULT, e.cause(), e.getMessage());
            } else {
                // AMD parts ignore bits 63:32 and read them as zero (KVM's __kvm_set_msr
                // comment on MSR_TSC_AUX); a fault is also acceptable. Either way no change.
                try {
                    m.write(cpu, IA32_TSC_AUX, old | TSC_AUX_RESERVED_BIT);
                } catch (HwException e) {
                    assertEquals(Cause.REGISTER_FAULT, e.cause(), e.getMessage());
                }
            }
            assertEquals(old, m.read(cpu, IA32_TSC_AUX), "CPU " + cpu + " unchanged");
        } finally {
            m.write(cpu, IA32_TSC_AUX, old);
        }
    }

    /** IA32_TSC_AUX exists iff CPUID.80000001H:EDX[27] (RDTSCP) or CPUID.(07H,0):ECX[22] (RDPID). */
    private boolean hasTscAux(int cpu) {
        CpuidReading c = cpuid();
        boolean rdtscp = Integer.compareUnsigned(c.regs(cpu, 0x80000000, 0).eax(), 0x80000001) >= 0
                && (c.regs(cpu, 0x80000001, 0).edx() & (1 << 27)) != 0;
        boolean rdpid = Integer.compareUnsigned(c.regs(cpu, 0, 0).eax(), 7) >= 0
                && (c.regs(cpu, 7, 0).ecx() & (1 << 22)) != 0;
        return rdtscp || rdpid;
    }

    private boolean isIntel(int cpu) {
        CpuidRegs r = cpuid().regs(cpu, 0, 0);
        return r.ebx() == 0x756E6547 && r.edx() == 0x49656E69 && r.ecx() == 0x6C65746E; // "GenuineIntel"
    }
}
