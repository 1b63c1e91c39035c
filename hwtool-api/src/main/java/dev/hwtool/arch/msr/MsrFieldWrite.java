package dev.hwtool.arch.msr;

/** Computes a register value with one field replaced, for {@code REG.FIELD=VALUE} writes. */
public final class MsrFieldWrite {

    private MsrFieldWrite() {
    }

    /**
     * {@code oldValue} with {@code field}'s declared bits replaced by {@code fieldValue}.
     *
     * @throws IllegalArgumentException when the field is not part of {@code def} or the value
     *                                  does not fit the field's width (unsigned)
     */
    public static long apply(MsrDef def, MsrField field, long oldValue, long fieldValue) {
        return apply(def, field, field.hi(), oldValue, fieldValue);
    }

    /** As {@link #apply(MsrDef, MsrField, long, long)}, with the field's implemented width on that CPU. */
    public static long apply(MsrDef def, MsrField field, long oldValue, long fieldValue, CpuContext ctx) {
        return apply(def, field, field.hi(ctx), oldValue, fieldValue);
    }

    private static long apply(MsrDef def, MsrField field, int hi, long oldValue, long fieldValue) {
        if (!def.fields().contains(field)) {
            throw new IllegalArgumentException("field " + field.name() + " is not a field of " + def.name());
        }
        int width = hi - field.lo() + 1;
        if (width < 64 && (fieldValue >>> width) != 0) {
            throw new IllegalArgumentException("value 0x" + Long.toHexString(fieldValue) + " does not fit "
                    + def.name() + "." + field.name() + " " + bitsText(hi, field.lo()) + " (" + width
                    + " bit" + (width == 1 ? "" : "s") + ", max 0x" + Long.toHexString((1L << width) - 1) + ")");
        }
        long mask = MsrField.mask(hi, field.lo());
        return (oldValue & ~mask) | ((fieldValue << field.lo()) & mask);
    }

    private static String bitsText(int hi, int lo) {
        return hi == lo ? "[" + lo + "]" : "[" + hi + ":" + lo + "]";
    }
}
