package dev.hwtool.arch.branch;

/**
 * How a legacy LBR entry stores one branch, by IA32_PERF_CAPABILITIES.LBR_FMT [5:0]
 * (SDM Vol. 3B 17.4.8.1 for formats 0–3; formats 4–7 as Linux arch/x86/events/intel/lbr.c
 * reads them; SDM Vol. 3B 17.4.8.1; arch/x86/events/intel/lbr.c, LBR_FORMAT_*). Pure functions in both directions: the simulator encodes
 * with them, readers decode with them.
 *
 * <ul>
 * <li>0 — 32-bit: FROM and TO packed in the FROM register (low half from, high half to).
 * <li>1, 2 — 64-bit linear/effective address, no flags.
 * <li>3 — FROM[63] = MISPRED, address in [62:0] sign-extended from bit 62.
 * <li>4 — FROM[63] MISPRED, [62] IN_TSX, [61] TSX_ABORT, address in [60:0] sign-extended from bit 60
 *     (the simulator has no TSX, so both TSX bits are 0).
 * <li>5, 7 — FROM/TO hold plain addresses; MSR_LBR_INFO_x holds [63] MISPRED and [15:0] the
 *     cycles since the previous LBR update, saturating (format 7 has no TSX bits).
 * <li>6 — FROM as format 3; TO[63:48] = 16-bit cycle count, TO address sign-extended from bit 47.
 * </ul>
 * A 1 in MISPRED means <em>mispredicted</em>: the 2009 SDM's "indicates the branch was
 * predicted" is an erratum (SDM Vol. 3B 17.4.8.1; arch/x86/events/intel/lbr.c, LBR_FORMAT_*).
 */
public final class LbrFormat {

    public static final int FMT_32 = 0;
    public static final int FMT_LIP = 1;
    public static final int FMT_EIP = 2;
    public static final int FMT_EIP_FLAGS = 3;
    public static final int FMT_EIP_FLAGS2 = 4;
    public static final int FMT_INFO = 5;
    public static final int FMT_TIME = 6;
    public static final int FMT_INFO2 = 7;

    public static final long MISPRED = 1L << 63;
    /** LBR_INFO / format-6 TO cycle count: 16 bits, saturating. */
    public static final int CYCLES_MAX = 0xFFFF;
    private static final int TIME_SHIFT = 48;

    private LbrFormat() {
    }

    /** Whether the format stores a mispredict flag at all. */
    public static boolean hasMispredict(int fmt) {
        return fmt >= FMT_EIP_FLAGS;
    }

    /** Whether the format stores a cycle count (in LBR_INFO for 5/7, in TO for 6). */
    public static boolean hasCycles(int fmt) {
        return fmt == FMT_INFO || fmt == FMT_TIME || fmt == FMT_INFO2;
    }

    /** Whether entries have an MSR_LBR_INFO_x register. */
    public static boolean hasInfo(int fmt) {
        return fmt == FMT_INFO || fmt == FMT_INFO2;
    }

    /** The FROM register's value for a branch. */
    public static long encodeFrom(int fmt, long from, long to, boolean mispredicted) {
        return switch (fmt) {
            case FMT_32 -> (from & 0xFFFF_FFFFL) | (to << 32);
            case FMT_EIP_FLAGS, FMT_TIME -> (from & ~MISPRED) | (mispredicted ? MISPRED : 0);
            case FMT_EIP_FLAGS2 -> (from & ((1L << 61) - 1)) | (mispredicted ? MISPRED : 0);
            default -> from;
        };
    }

    /** The TO register's value; format 0 keeps TO in the FROM register and writes 0 here. */
    public static long encodeTo(int fmt, long to, int cycles) {
        return switch (fmt) {
            case FMT_32 -> 0;
            case FMT_TIME -> (to & ((1L << TIME_SHIFT) - 1)) | ((long) saturate(cycles) << TIME_SHIFT);
            default -> to;
        };
    }

    /** The LBR_INFO register's value (formats 5 and 7; 0 otherwise). */
    public static long encodeInfo(int fmt, boolean mispredicted, int cycles) {
        return hasInfo(fmt) ? (mispredicted ? MISPRED : 0) | saturate(cycles) : 0;
    }

    /** The branch source address a FROM value holds. */
    public static long decodeFrom(int fmt, long raw) {
        return switch (fmt) {
            case FMT_32 -> raw & 0xFFFF_FFFFL;
            case FMT_EIP_FLAGS, FMT_TIME -> (raw << 1) >> 1;
            case FMT_EIP_FLAGS2 -> (raw << 3) >> 3;
            default -> raw;
        };
    }

    /** The branch target address. */
    public static long decodeTo(int fmt, long fromRaw, long toRaw) {
        return switch (fmt) {
            case FMT_32 -> fromRaw >>> 32;
            case FMT_TIME -> (toRaw << 16) >> 16;
            default -> toRaw;
        };
    }

    /** Whether the entry says mispredicted; false where the format cannot tell. */
    public static boolean decodeMispredicted(int fmt, long fromRaw, long infoRaw) {
        return switch (fmt) {
            case FMT_EIP_FLAGS, FMT_EIP_FLAGS2, FMT_TIME -> (fromRaw & MISPRED) != 0;
            case FMT_INFO, FMT_INFO2 -> (infoRaw & MISPRED) != 0;
            default -> false;
        };
    }

    /** The stored cycle count, or -1 where the format has none. */
    public static int decodeCycles(int fmt, long toRaw, long infoRaw) {
        return switch (fmt) {
            case FMT_TIME -> (int) (toRaw >>> TIME_SHIFT);
            case FMT_INFO, FMT_INFO2 -> (int) (infoRaw & CYCLES_MAX);
            default -> -1;
        };
    }

    static int saturate(int cycles) {
        return cycles < 0 ? 0 : Math.min(cycles, CYCLES_MAX);
    }
}
