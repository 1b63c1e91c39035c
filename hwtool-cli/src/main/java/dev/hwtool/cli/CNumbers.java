package dev.hwtool.cli;

import java.util.OptionalLong;

/**
 * C's number parsing as msr-tools relies on it ({@code strtoul(s, &end, 0)} for {@code -p},
 * {@code sscanf("%u:%u")} for {@code -f}), and hwtool's strict form of the same syntax for
 * register numbers and values, where C would silently read garbage as 0.
 */
final class CNumbers {

    private CNumbers() {
    }

    /** strtoul's result: the value (mod 2^64, ULONG_MAX on overflow) and where parsing stopped. */
    record Parsed(long value, int end) {
    }

    /**
     * glibc strtoul/strtoull with base 0 on LP64: leading white space, an optional sign, then
     * 0x/0X hex, 0 octal or decimal. No digits: value 0 and end 0. A minus negates modulo 2^64.
     */
    static Parsed strtoul(String s) {
        return strtoul(s, 0);
    }

    static Parsed strtoul(String s, int base) {
        int i = 0;
        while (i < s.length() && isCSpace(s.charAt(i))) {
            i++;
        }
        boolean negative = false;
        if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            negative = s.charAt(i) == '-';
            i++;
        }
        int b = base;
        if ((b == 0 || b == 16) && i + 2 < s.length() && s.charAt(i) == '0'
                && (s.charAt(i + 1) == 'x' || s.charAt(i + 1) == 'X') && digit(s.charAt(i + 2), 16) >= 0) {
            b = 16;
            i += 2;
        } else if (b == 0) {
            b = i < s.length() && s.charAt(i) == '0' ? 8 : 10;
        }
        int start = i;
        long value = 0;
        boolean overflow = false;
        while (i < s.length() && digit(s.charAt(i), b) >= 0) {
            int d = digit(s.charAt(i), b);
            // value * b + d > 2^64 - 1, computed unsigned
            if (Long.compareUnsigned(value, Long.divideUnsigned(-1L - d, b)) > 0) {
                overflow = true;
            }
            value = value * b + d;
            i++;
        }
        if (i == start) {
            return new Parsed(0, 0);
        }
        if (overflow) {
            return new Parsed(-1L, i);
        }
        return new Parsed(negative ? -value : value, i);
    }

    /** sscanf(s, "%u:%u", &h, &l): {h, l} as unsigned ints, or null unless both conversions succeed (text after them is ignored, as by sscanf). */
    static int[] scanBitfield(String s) {
        int[] out = new int[2];
        int i = 0;
        for (int k = 0; k < 2; k++) {
            if (k == 1) {
                if (i >= s.length() || s.charAt(i) != ':') {
                    return null;
                }
                i++;
            }
            // %u: white space, optional sign, decimal digits; stored into unsigned int (mod 2^32)
            while (i < s.length() && isCSpace(s.charAt(i))) {
                i++;
            }
            int signAt = i;
            if (i < s.length() && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
                i++;
            }
            if (i >= s.length() || digit(s.charAt(i), 10) < 0) {
                return null;
            }
            Parsed p = strtoul(s.substring(signAt), 10);
            i = signAt + p.end();
            out[k] = (int) p.value();
        }
        return out;
    }

    /**
     * hwtool's strict reading of a C integer literal: 0x/0X hex, 0 octal or decimal, nothing
     * else (no sign, no spaces, no trailing text), at most {@code bits} wide. Empty when it is not one.
     */
    static OptionalLong strict(String s, int bits) {
        if (s.isEmpty() || !Character.isDigit(s.charAt(0))) {
            return OptionalLong.empty();
        }
        Parsed p = strtoul(s);
        if (p.end() != s.length()) {
            return OptionalLong.empty();
        }
        // strtoul reports overflow as all-ones; tell it apart from a literal all-ones by length.
        if (p.value() == -1L && overflows64(s)) {
            return OptionalLong.empty();
        }
        if (bits < 64 && Long.compareUnsigned(p.value(), (1L << bits) - 1) > 0) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(p.value());
    }

    private static boolean overflows64(String s) {
        java.math.BigInteger v;
        if (s.length() > 2 && (s.charAt(1) == 'x' || s.charAt(1) == 'X')) {
            v = new java.math.BigInteger(s.substring(2), 16);
        } else if (s.length() > 1 && s.charAt(0) == '0') {
            v = new java.math.BigInteger(s.substring(1), 8);
        } else {
            v = new java.math.BigInteger(s, 10);
        }
        return v.bitLength() > 64;
    }

    private static boolean isCSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000b' || c == '\f' || c == '\r';
    }

    private static int digit(char c, int base) {
        int d;
        if (c >= '0' && c <= '9') {
            d = c - '0';
        } else if (c >= 'a' && c <= 'z') {
            d = c - 'a' + 10;
        } else if (c >= 'A' && c <= 'Z') {
            d = c - 'A' + 10;
        } else {
            return -1;
        }
        return d < base ? d : -1;
    }
}
