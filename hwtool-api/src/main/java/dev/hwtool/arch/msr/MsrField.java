package dev.hwtool.arch.msr;

import java.util.Objects;

/**
 * One bit field of an MSR, bits {@code hi..lo} inclusive as the SDM writes them ("[15:8]").
 *
 * @param condition when the field exists; where it is false the bits are reserved
 * @param width     whether the implemented top bit comes from CPUID (counters, addresses)
 */
public record MsrField(String name, int hi, int lo, Access access, Condition condition, String description,
                       FieldWidth width) {

    public MsrField {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(access, "access");
        Objects.requireNonNull(condition, "condition");
        Objects.requireNonNull(description, "description");
        Objects.requireNonNull(width, "width");
        if (lo < 0 || hi > 63 || hi < lo) {
            throw new IllegalArgumentException("field " + name + " has bad bits [" + hi + ":" + lo + "]");
        }
    }

    /** A field whose width is the declared {@code hi..lo}. */
    public MsrField(String name, int hi, int lo, Access access, Condition condition, String description) {
        this(name, hi, lo, access, condition, description, FieldWidth.DECLARED);
    }

    /** The declared width in bits. */
    public int bits() {
        return hi - lo + 1;
    }

    /** The declared bits as a mask in the register. */
    public long mask() {
        return mask(hi, lo);
    }

    /** Whether the field exists on this CPU. */
    public boolean existsOn(CpuContext ctx) {
        return condition.test(ctx);
    }

    /** The highest implemented bit on this CPU (see {@link FieldWidth}). */
    public int hi(CpuContext ctx) {
        return width.effectiveHi(hi, lo, ctx);
    }

    /** The implemented bits on this CPU as a mask, or 0 when the field does not exist there. */
    public long mask(CpuContext ctx) {
        return existsOn(ctx) ? mask(hi(ctx), lo) : 0L;
    }

    /** This field's value within a register value (declared width). */
    public long extract(long registerValue) {
        return (registerValue & mask()) >>> lo;
    }

    /** "LBR [0]" or "EVENT [7:0]". */
    public String bitsText() {
        return hi == lo ? "[" + lo + "]" : "[" + hi + ":" + lo + "]";
    }

    static long mask(int hi, int lo) {
        int w = hi - lo + 1;
        long ones = w == 64 ? -1L : (1L << w) - 1;
        return ones << lo;
    }
}
