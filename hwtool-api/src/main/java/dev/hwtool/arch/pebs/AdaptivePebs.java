package dev.hwtool.arch.pebs;

/**
 * Adaptive PEBS records (PEBS_FMT 4 and later with IA32_PERF_CAPABILITIES.PEBS_BASELINE): a
 * 32-byte basic group, then the groups MSR_PEBS_DATA_CFG (3F2H) selects, in this order:
 * memory info, general-purpose registers, XMM registers, LBR entries. The basic group's first
 * word says the record's size in bits 63:48 and the groups present in bits 31:0. SDM Vol. 3B
 * 20.9.2 "Adaptive PEBS"; Linux arch/x86/include/asm/perf_event.h {@code struct pebs_basic},
 * {@code pebs_meminfo}, {@code pebs_gprs}, {@code pebs_xmm}, {@code PEBS_DATACFG_*}, and ds.c
 * adaptive_pebs_record_size_update.
 */
public final class AdaptivePebs {

    /** MSR_PEBS_DATA_CFG bits (perf_event.h PEBS_DATACFG_MEMINFO, _GP, _XMMS, _LBRS, PEBS_DATACFG_LBR_SHIFT). */
    public static final long DATACFG_MEMINFO = 1L;
    public static final long DATACFG_GP = 1L << 1;
    public static final long DATACFG_XMMS = 1L << 2;
    public static final long DATACFG_LBRS = 1L << 3;
    public static final int DATACFG_LBR_SHIFT = 24;

    /** Basic group: format_size @0, ip @8, applicable_counters @10H, tsc @18H. */
    public static final int BASIC_SIZE = 32;
    public static final int FORMAT_SIZE = 0x00;
    public static final int IP = 0x08;
    public static final int APPLICABLE_COUNTERS = 0x10;
    public static final int TSC = 0x18;
    /** format_size: the record size in bits 63:48, the groups (MSR_PEBS_DATA_CFG's) in bits 31:0. */
    public static final int RECORD_SIZE_SHIFT = 48;

    /** Memory-info group: address, aux, latency, tsx_tuning. */
    public static final int MEMINFO_SIZE = 32;
    /** GPR group: flags, ip, ax, cx, dx, bx, sp, bp, si, di, r8..r15 (note the order: not the legacy one). */
    public static final int GPRS_SIZE = 144;
    public static final int GPRS_FLAGS = 0x00;
    public static final int GPRS_IP = 0x08;
    public static final int GPRS_AX = 0x10;
    public static final int GPRS_CX = 0x18;
    public static final int GPRS_DX = 0x20;
    public static final int GPRS_BX = 0x28;
    public static final int GPRS_SP = 0x30;
    public static final int GPRS_BP = 0x38;
    public static final int GPRS_SI = 0x40;
    public static final int GPRS_DI = 0x48;
    public static final int GPRS_R8 = 0x50;
    /** XMM group: XMM0..15, 16 bytes each. */
    public static final int XMMS_SIZE = 256;
    /** One LBR entry: from, to, info. */
    public static final int LBR_ENTRY_SIZE = 24;

    private AdaptivePebs() {
    }

    /** LBR entries a record carries: DATA_CFG[31:24] + 1 when LBRS is set, else 0. */
    public static int lbrEntries(long dataCfg) {
        return (dataCfg & DATACFG_LBRS) == 0 ? 0 : (int) (dataCfg >>> DATACFG_LBR_SHIFT & 0xFF) + 1;
    }

    /** Offset of the memory-info group, or -1 when absent. */
    public static int meminfoOffset(long dataCfg) {
        return (dataCfg & DATACFG_MEMINFO) == 0 ? -1 : BASIC_SIZE;
    }

    /** Offset of the GPR group, or -1 when absent. */
    public static int gprsOffset(long dataCfg) {
        return (dataCfg & DATACFG_GP) == 0 ? -1 : BASIC_SIZE + ((dataCfg & DATACFG_MEMINFO) != 0 ? MEMINFO_SIZE : 0);
    }

    /** Offset of the XMM group, or -1 when absent. */
    public static int xmmsOffset(long dataCfg) {
        if ((dataCfg & DATACFG_XMMS) == 0) {
            return -1;
        }
        return BASIC_SIZE + ((dataCfg & DATACFG_MEMINFO) != 0 ? MEMINFO_SIZE : 0)
                + ((dataCfg & DATACFG_GP) != 0 ? GPRS_SIZE : 0);
    }

    /** Offset of the first LBR entry, or -1 when absent. */
    public static int lbrOffset(long dataCfg) {
        if ((dataCfg & DATACFG_LBRS) == 0) {
            return -1;
        }
        return recordSize(dataCfg & ~DATACFG_LBRS);
    }

    /** The record size the groups of {@code dataCfg} make (Linux adaptive_pebs_record_size_update). */
    public static int recordSize(long dataCfg) {
        int size = BASIC_SIZE;
        if ((dataCfg & DATACFG_MEMINFO) != 0) {
            size += MEMINFO_SIZE;
        }
        if ((dataCfg & DATACFG_GP) != 0) {
            size += GPRS_SIZE;
        }
        if ((dataCfg & DATACFG_XMMS) != 0) {
            size += XMMS_SIZE;
        }
        return size + lbrEntries(dataCfg) * LBR_ENTRY_SIZE;
    }

    /** The basic group's first word: size in 63:48, groups in 31:0. */
    public static long formatSize(long dataCfg) {
        return (long) recordSize(dataCfg) << RECORD_SIZE_SHIFT | (dataCfg & 0xFFFF_FFFFL);
    }
}
