package dev.hwtool.cli;

import java.nio.charset.StandardCharsets;

/**
 * msr-tools 1.3 {@code rdmsr} output, byte for byte: the same printf pattern and field width for
 * every combination of base, {@code -c} and {@code -0} (rdmsr.c, rdmsr_on_cpu), with one
 * deliberate difference: {@code -d} prints the two's-complement value of the selected bits
 * (see {@link #signed(long, int)}). Pure: no I/O.
 */
final class MsrToolsFormat {

    private MsrToolsFormat() {
    }

    /** The output base; the last of -x -X -d -u -o -r given wins, as in rdmsr.c. */
    enum Base { HEX, CAPITAL_HEX, SIGNED_DECIMAL, UNSIGNED_DECIMAL, OCTAL, RAW }

    /**
     * Output style: base, {@code -c} (C constant), {@code -0} (zero fill) and the {@code -f h:l}
     * bit field (63:0 by default). -c and -0 are sticky flags, as mode bits mo_c/mo_fill are.
     */
    record Style(Base base, boolean cLanguage, boolean zeroFill, int highBit, int lowBit) {
        static final Style DEFAULT = new Style(Base.HEX, false, false, 63, 0);

        Style {
            if (highBit > 63 || lowBit < 0 || lowBit > highBit) {
                throw new IllegalArgumentException("bit field " + highBit + ":" + lowBit);
            }
        }

        int bits() {
            return highBit - lowBit + 1;
        }

        Style withBase(Base b) {
            return new Style(b, cLanguage, zeroFill, highBit, lowBit);
        }

        Style withC() {
            return new Style(base, true, zeroFill, highBit, lowBit);
        }

        Style withFill() {
            return new Style(base, cLanguage, true, highBit, lowBit);
        }

        Style withBits(int high, int low) {
            return new Style(base, cLanguage, zeroFill, high, low);
        }
    }

    /**
     * Decimal digits of the largest n-bit number, (int) ceil(log(2^n)/log(10)), index n = 0..64:
     * rdmsr.c's decdigits table, which sets the -0 width of -d and -u.
     */
    private static final int[] DECDIGITS = {
            1, 1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5,
            5, 6, 6, 6, 7, 7, 7, 7, 8, 8, 8, 9, 9, 9, 10, 10,
            10, 10, 11, 11, 11, 12, 12, 12, 13, 13, 13, 13, 14, 14, 14, 15,
            15, 15, 16, 16, 16, 16, 17, 17, 17, 18, 18, 18, 19, 19, 19, 19,
            20
    };

    static int decimalDigits(int bits) {
        return DECDIGITS[bits];
    }

    /** Bits high..low of {@code value}, shifted down to bit 0. */
    static long field(long value, int high, int low) {
        int bits = high - low + 1;
        return bits >= 64 ? value : (value >>> low) & ((1L << bits) - 1);
    }

    /**
     * The selected bits read as a {@code bits}-wide two's-complement number: all-ones of 64 bits
     * is -1, and 0xF of {@code -f 3:0} is -1. msr-tools clears the sign bit and negates the rest,
     * printing -9223372036854775807 and -7 there; that is the one output hwtool does not copy.
     */
    static long signed(long field, int bits) {
        if (bits >= 64) {
            return field;
        }
        return (field << (64 - bits)) >> (64 - bits);
    }

    /**
     * The bytes rdmsr prints for one CPU's {@code value} (the whole register; the style's bit
     * field is applied here). {@code cpuPrefix} is the CPU number under -a, else null: rdmsr
     * prefixes "CPU N: " to every text pattern, never to raw bytes.
     */
    static byte[] format(long value, Style style, Integer cpuPrefix) {
        int bits = style.bits();
        long data = field(value, style.highBit(), style.lowBit());
        boolean c = style.cLanguage();
        boolean fill = style.zeroFill();
        String text = switch (style.base()) {
            case RAW -> null;
            case HEX -> (c ? "0x" : "") + pad(Long.toHexString(data), fill ? (bits + 3) / 4 : 1);
            case CAPITAL_HEX -> (c ? "0x" : "") + pad(Long.toHexString(data).toUpperCase(java.util.Locale.ROOT), fill ? (bits + 3) / 4 : 1);
            case OCTAL -> (c ? "0" : "") + pad(Long.toOctalString(data), fill ? (bits + 2) / 3 : 1);
            // rdmsr.c: mo_dec|mo_fill pads to decdigits[bits-1]+1 (a place for the sign);
            // with -c the width stays 1 (mo_dec|mo_fill|mo_c shares mo_dec's pattern).
            case SIGNED_DECIMAL -> signedPad(signed(data, bits), fill && !c ? DECDIGITS[bits - 1] + 1 : 1);
            // mo_uns|mo_fill|mo_c shares mo_uns|mo_c's "%*lluU" with width 1.
            case UNSIGNED_DECIMAL -> pad(Long.toUnsignedString(data), fill && !c ? DECDIGITS[bits] : 1) + (c ? "U" : "");
        };
        if (text == null) {
            if (c) {
                // {0x..,0x..} of the 8 bytes in memory order: little-endian on x86
                StringBuilder b = new StringBuilder();
                for (int i = 0; i < 8; i++) {
                    b.append(i == 0 ? "{" : ",").append(String.format("0x%02x", (data >>> (8 * i)) & 0xFF));
                }
                return b.append("}\n").toString().getBytes(StandardCharsets.US_ASCII);
            }
            byte[] raw = new byte[8];
            for (int i = 0; i < 8; i++) {
                raw[i] = (byte) (data >>> (8 * i));
            }
            return raw;
        }
        return ((cpuPrefix != null ? "CPU " + cpuPrefix + ": " : "") + text + "\n").getBytes(StandardCharsets.US_ASCII);
    }

    /** printf's %0*: zeros on the left up to width. */
    private static String pad(String digits, int width) {
        return digits.length() >= width ? digits : "0".repeat(width - digits.length()) + digits;
    }

    /** printf's %0*lld: the sign first, then zeros, the whole at least width wide. */
    private static String signedPad(long v, int width) {
        if (v >= 0) {
            return pad(Long.toString(v), width);
        }
        String digits = Long.toString(v).substring(1);
        return "-" + pad(digits, width - 1);
    }
}
