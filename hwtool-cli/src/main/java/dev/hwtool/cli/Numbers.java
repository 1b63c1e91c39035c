package dev.hwtool.cli;

import dev.hwtool.io.CpuList;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Number parsing and formatting shared by the commands. */
final class Numbers {

    private Numbers() {
    }

    /*
     * As String.format("0x%08x") and ("0x%016x") print them (Formatter: Integer/Long.toHexString,
     * lowercase, zero-padded to the width, never cut), without parsing a format string on every
     * call: a decode line formats a dozen values, in the interpreter for a batch's first lines.
     */

    /** A 32-bit value (CPUID register, leaf) as 0x%08x. */
    static String hex32(int v) {
        return padded(Integer.toHexString(v), 8);
    }

    /** An unsigned 32-bit value held in a long (an MSR index) as 0x%08x, msr-tools' spelling. */
    static String hex32(long v) {
        return padded(Long.toHexString(v), 8);
    }

    /** A 64-bit register value as 0x%016x. */
    static String hex64(long v) {
        return padded(Long.toHexString(v), 16);
    }

    private static String padded(String hex, int width) {
        if (hex.length() >= width) {
            return "0x" + hex;
        }
        return "0x" + "0000000000000000".substring(0, width - hex.length()) + hex;
    }

    /**
     * A logical CPU number for --cpu: decimal, 0 to {@link CpuList#MAX_CPU} (far above any
     * kernel's NR_CPUS); a negative or larger one is a usage error (exit 2), whether a CPU
     * of that number exists is the command's to say.
     */
    static final class CpuNumber implements ITypeConverter<Integer> {
        /** The range, as the help of every --cpu names it. */
        static final String RANGE = "0 to " + CpuList.MAX_CPU;

        @Override
        public Integer convert(String s) {
            if (!s.matches("[0-9]{1,9}") || Integer.parseInt(s) > CpuList.MAX_CPU) {
                throw new TypeConversionException("'" + s + "' is not a CPU number (" + RANGE + ")");
            }
            return Integer.parseInt(s);
        }
    }

    /** An unsigned 32-bit number, decimal or 0x-prefixed hex; anything else is a usage error. */
    static final class UInt32 implements ITypeConverter<Integer> {
        @Override
        public Integer convert(String s) {
            long v;
            try {
                v = s.startsWith("0x") || s.startsWith("0X") ? Long.parseLong(s.substring(2), 16) : Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw new TypeConversionException("'" + s + "' is not a number (decimal or 0x hex)");
            }
            if (v < 0 || v > 0xFFFF_FFFFL) {
                throw new TypeConversionException("'" + s + "' is out of range (0 to 0xffffffff)");
            }
            return (int) v;
        }
    }
}
