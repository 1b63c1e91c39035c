package dev.hwtool.arch.msr;

/**
 * Where a field's implemented width comes from. Most fields are as wide as declared; counters
 * and physical addresses are as wide as CPUID says, and the bits above are reserved
 * (SDM Vol. 3B 20.2.1: counter width CPUID.0AH:EAX[23:16] / EDX[12:5]; Vol. 3A 4.1.4 MAXPHYADDR).
 */
public enum FieldWidth {
    /** The declared hi..lo. */
    DECLARED,
    /** General-purpose counter width, CPUID.0AH:EAX[23:16]. */
    GP_COUNTER,
    /** Fixed-function counter width, CPUID.0AH:EDX[12:5]. */
    FIXED_COUNTER,
    /** Physical-address bits lo..MAXPHYADDR-1, CPUID.80000008H:EAX[7:0] (36 when absent). */
    PHYSICAL_ADDRESS,
    /** An index into the legacy LBR stack: log2(depth) bits (model table, SDM Table 17-4). */
    LEGACY_LBR_INDEX;

    /**
     * The highest implemented bit of a field declared as {@code hi..lo} on this CPU: for a
     * width-bound field bit {@code width-1} (counters count from bit 0; addresses are bit numbers),
     * never above the declared {@code hi}; the declared {@code hi} when CPUID gives no width.
     */
    public int effectiveHi(int hi, int lo, CpuContext ctx) {
        int top = switch (this) {
            case DECLARED -> hi;
            case GP_COUNTER -> ctx.capabilities().archPerfmon().gpWidth() - 1;
            case FIXED_COUNTER -> ctx.capabilities().archPerfmon().fixedWidth() - 1;
            case PHYSICAL_ADDRESS -> ctx.maxPhysAddr() - 1;
            case LEGACY_LBR_INDEX -> lo + indexBits(ctx.capabilities().legacyLbr().depth()) - 1;
        };
        if (top < lo) {
            return hi;
        }
        return Math.min(hi, top);
    }

    /** For documentation: "CPUID.0AH:EAX[23:16]". */
    public String describe() {
        return switch (this) {
            case DECLARED -> "declared";
            case GP_COUNTER -> "CPUID.0AH:EAX[23:16] bits";
            case FIXED_COUNTER -> "CPUID.0AH:EDX[12:5] bits";
            case PHYSICAL_ADDRESS -> "up to MAXPHYADDR-1 (CPUID.80000008H:EAX[7:0])";
            case LEGACY_LBR_INDEX -> "log2(legacy LBR depth) bits";
        };
    }

    /** Bits needed to index {@code depth} entries (depths are powers of two: 4, 8, 16, 32). */
    private static int indexBits(int depth) {
        return depth <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(depth - 1);
    }
}
