package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.EAX;
import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.EBX;
import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.ECX;
import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.EDX;

/**
 * The single-bit CPUID flags the decoders read, as data: leaf, subleaf, register, bit.
 * Names follow the SDM (Vol. 2A, CPUID) and Linux cpufeatures.h.
 */
public enum CpuidBit {
    TSC(0x1, 0, EDX, 4),
    MSR(0x1, 0, EDX, 5),
    DS(0x1, 0, EDX, 21),
    DTES64(0x1, 0, ECX, 2),
    DS_CPL(0x1, 0, ECX, 4),
    PDCM(0x1, 0, ECX, 15),
    HYPERVISOR(0x1, 0, ECX, 31),
    RTM(0x7, 0, EBX, 11),
    INTEL_PT(0x7, 0, EBX, 25),
    BUS_LOCK_DETECT(0x7, 0, ECX, 24),
    HYBRID(0x7, 0, EDX, 15),
    ARCH_LBR(0x7, 0, EDX, 19),
    /** Leaf 1CH (architectural LBR capabilities), SDM Vol. 2A CPUID leaf 1CH. */
    ARCH_LBR_DEEP_C_RESET(0x1C, 0, EAX, 30),
    ARCH_LBR_LIP(0x1C, 0, EAX, 31),
    ARCH_LBR_CPL_FILTER(0x1C, 0, EBX, 0),
    ARCH_LBR_BRANCH_FILTER(0x1C, 0, EBX, 1),
    ARCH_LBR_CALL_STACK(0x1C, 0, EBX, 2),
    ARCH_LBR_MISPREDICT(0x1C, 0, ECX, 0),
    ARCH_LBR_TIMED(0x1C, 0, ECX, 1),
    ARCH_LBR_BRANCH_TYPE(0x1C, 0, ECX, 2),
    RDTSCP(0x8000_0001, 0, EDX, 27);

    private final int leaf;
    private final int subleaf;
    private final Reg reg;
    private final int bit;

    CpuidBit(int leaf, int subleaf, Reg reg, int bit) {
        this.leaf = leaf;
        this.subleaf = subleaf;
        this.reg = reg;
        this.bit = bit;
    }

    public int leaf() {
        return leaf;
    }

    public int subleaf() {
        return subleaf;
    }

    public Reg reg() {
        return reg;
    }

    public int bit() {
        return bit;
    }

    /** This flag in registers already read from {@link #leaf()}/{@link #subleaf()}. */
    public boolean in(CpuidRegs regs) {
        return regs.bit(reg, bit);
    }
}
