package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

/**
 * One numeric parameter of a generated workload: its spec key, unsigned range and default.
 * The records check their components against these, so the spec parser, the records and the
 * grammar text cannot disagree about a range.
 *
 * @param hex whether values are shown in hex (addresses) rather than unsigned decimal
 */
record Param(String name, long min, long max, long dflt, boolean hex) {

    /** {@code value}, or BAD_INPUT naming the workload kind, the key and the allowed range. */
    long check(String kind, long value) {
        if (Long.compareUnsigned(value, min) < 0 || Long.compareUnsigned(value, max) > 0) {
            throw new HwException(Cause.BAD_INPUT, kind + ": " + name + "=" + format(value)
                    + " out of range " + range());
        }
        return value;
    }

    String format(long value) {
        return hex ? "0x" + Long.toHexString(value) : Long.toUnsignedString(value);
    }

    String range() {
        return format(min) + ".." + format(max);
    }

    /** "name=value" as {@link Workload#describe()} writes it. */
    String show(long value) {
        return name + "=" + format(value);
    }
}
