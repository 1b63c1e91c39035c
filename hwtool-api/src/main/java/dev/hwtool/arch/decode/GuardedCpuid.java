package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

/**
 * CPUID reads that respect the ranges the processor reports. SDM Vol. 2A, CPUID: "If a value
 * entered for CPUID.EAX is higher than the maximum input value for basic or extended function
 * for that processor then the data for the highest basic information leaf is returned" — so a
 * blind read of an absent leaf returns plausible-looking garbage. Here an absent leaf reads
 * as all zeros ("not reported").
 *
 * <p>Ranges: basic 0..CPUID.0:EAX; extended 80000000H..CPUID.80000000H:EAX, valid only when
 * that EAX itself lies in 8000xxxxH (CPUs without extended leaves answer with basic data);
 * hypervisor 40000000H.. only when CPUID.1:ECX[31] says a hypervisor is present (bare metal
 * answers with basic data there too).
 */
public final class GuardedCpuid {

    public static final int BASIC_BASE = 0x0000_0000;
    public static final int HYPERVISOR_BASE = 0x4000_0000;
    public static final int EXTENDED_BASE = 0x8000_0000;

    private static final int RANGE_MASK = 0xFFFF_0000;

    private final CpuidReader reader;
    private final int maxBasic;
    private final int maxExtended;
    private final int maxHypervisor;

    private GuardedCpuid(CpuidReader reader, int maxBasic, int maxExtended, int maxHypervisor) {
        this.reader = reader;
        this.maxBasic = maxBasic;
        this.maxExtended = maxExtended;
        this.maxHypervisor = maxHypervisor;
    }

    public static GuardedCpuid over(CpuidReader reader) {
        int maxBasic = reader.cpuid(BASIC_BASE).eax();
        int ext = reader.cpuid(EXTENDED_BASE).eax();
        int maxExtended = (ext & RANGE_MASK) == EXTENDED_BASE ? ext : 0;
        boolean hv = Integer.compareUnsigned(maxBasic, 1) >= 0
                && CpuidBit.HYPERVISOR.in(reader.cpuid(1, 0));
        int maxHypervisor = 0;
        if (hv) {
            // KVM once reported EAX = 0 here, meaning "40000001H"; the signature leaf itself
            // always exists when the hypervisor bit is set.
            int hvMax = reader.cpuid(HYPERVISOR_BASE).eax();
            maxHypervisor = (hvMax & RANGE_MASK) == HYPERVISOR_BASE ? hvMax : HYPERVISOR_BASE;
        }
        return new GuardedCpuid(reader, maxBasic, maxExtended, maxHypervisor);
    }

    /** CPUID.0:EAX, the highest basic leaf. */
    public int maxBasicLeaf() {
        return maxBasic;
    }

    /** CPUID.80000000H:EAX, or 0 when the processor has no extended leaves. */
    public int maxExtendedLeaf() {
        return maxExtended;
    }

    /** The highest hypervisor leaf, or 0 when no hypervisor is reported. */
    public int maxHypervisorLeaf() {
        return maxHypervisor;
    }

    /** Whether {@code leaf} lies within a range this processor reports. */
    public boolean has(int leaf) {
        int range = leaf & RANGE_MASK;
        if (range == EXTENDED_BASE) {
            return maxExtended != 0 && Integer.compareUnsigned(leaf, maxExtended) <= 0;
        }
        if (range == HYPERVISOR_BASE) {
            return maxHypervisor != 0 && Integer.compareUnsigned(leaf, maxHypervisor) <= 0;
        }
        return Integer.compareUnsigned(leaf, HYPERVISOR_BASE) < 0
                && Integer.compareUnsigned(leaf, maxBasic) <= 0;
    }

    /** The leaf's registers, or {@link CpuidRegs#ZERO} when it is out of range. */
    public CpuidRegs read(int leaf, int subleaf) {
        return has(leaf) ? reader.cpuid(leaf, subleaf) : CpuidRegs.ZERO;
    }

    public boolean flag(CpuidBit b) {
        return b.in(read(b.leaf(), b.subleaf()));
    }

    public int field(CpuidField f) {
        return f.in(read(f.leaf(), f.subleaf()));
    }
}
