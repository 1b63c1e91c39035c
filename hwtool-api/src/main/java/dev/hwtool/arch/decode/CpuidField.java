package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.EAX;
import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.EBX;
import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.ECX;
import static dev.hwtool.arch.cpuid.CpuidRegs.Reg.EDX;

/**
 * The multi-bit CPUID fields the decoders read, as data: leaf, subleaf, register, bits hi..lo
 * (SDM Vol. 2A, CPUID).
 */
public enum CpuidField {
    /** CPUID.01H:EAX, "Processor Version Information". */
    STEPPING(0x1, 0, EAX, 3, 0),
    BASE_MODEL(0x1, 0, EAX, 7, 4),
    BASE_FAMILY(0x1, 0, EAX, 11, 8),
    EXTENDED_MODEL(0x1, 0, EAX, 19, 16),
    EXTENDED_FAMILY(0x1, 0, EAX, 27, 20),
    /** CPUID.0AH, architectural performance monitoring (SDM Vol. 3B 20.2). */
    PERFMON_VERSION(0xA, 0, EAX, 7, 0),
    PERFMON_GP_COUNTERS(0xA, 0, EAX, 15, 8),
    PERFMON_GP_WIDTH(0xA, 0, EAX, 23, 16),
    PERFMON_EVENT_VECTOR_LENGTH(0xA, 0, EAX, 31, 24),
    PERFMON_EVENTS_UNAVAILABLE(0xA, 0, EBX, 31, 0),
    PERFMON_FIXED_BITMAP(0xA, 0, ECX, 31, 0),
    PERFMON_FIXED_COUNTERS(0xA, 0, EDX, 4, 0),
    PERFMON_FIXED_WIDTH(0xA, 0, EDX, 12, 5),
    /** CPUID.1AH:EAX[31:24], hybrid core type. */
    CORE_TYPE(0x1A, 0, EAX, 31, 24),
    /** CPUID.1CH:EAX[7:0], supported arch-LBR depths (bit n → 8·(n+1)). */
    ARCH_LBR_DEPTH_MASK(0x1C, 0, EAX, 7, 0);

    private final int leaf;
    private final int subleaf;
    private final Reg reg;
    private final int hi;
    private final int lo;

    CpuidField(int leaf, int subleaf, Reg reg, int hi, int lo) {
        this.leaf = leaf;
        this.subleaf = subleaf;
        this.reg = reg;
        this.hi = hi;
        this.lo = lo;
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

    /** This field in registers already read from {@link #leaf()}/{@link #subleaf()}. */
    public int in(CpuidRegs regs) {
        return regs.bits(reg, hi, lo);
    }
}
