package dev.hwtool.arch.msr;

/**
 * One field of a register value as decoded on a CPU: bits {@code hi..lo}, their value shifted
 * down to bit 0. A {@link #RESERVED} entry reports a run of set reserved bits.
 */
public record DecodedField(String name, int hi, int lo, long value, Access access, String description) {

    public static final String RESERVED = "RESERVED";

    public boolean reserved() {
        return RESERVED.equals(name);
    }

    /** This field's bits placed back at their position in the register. */
    public long inPlace() {
        return value << lo;
    }

    public String bitsText() {
        return hi == lo ? "[" + lo + "]" : "[" + hi + ":" + lo + "]";
    }
}
