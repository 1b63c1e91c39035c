package dev.hwtool.msr;

import java.math.BigInteger;

/** The journal's and save file's spelling of numbers: msr-tools' 0x%08x and 0x%016x. */
final class Hex {

    private Hex() {
    }

    /** An unsigned 32-bit value held in a long (an MSR index) as 0x%08x. */
    static String hex32(long v) {
        return String.format("0x%08x", v);
    }

    /** A 64-bit register value as 0x%016x. */
    static String hex64(long v) {
        return String.format("0x%016x", v);
    }

    /**
     * "0x" and hex digits only (no sign, no spaces), at most {@code bits} wide; leading zeros
     * are allowed. Empty when {@code s} is not one: the strict reading the CLI gives C literals,
     * restricted to the 0x form these files write.
     */
    static java.util.OptionalLong parse0x(String s, int bits) {
        if (s.length() < 3 || !s.startsWith("0x")) {
            return java.util.OptionalLong.empty();
        }
        for (int i = 2; i < s.length(); i++) {
            if (Character.digit(s.charAt(i), 16) < 0 || s.charAt(i) > 'f') {
                return java.util.OptionalLong.empty();
            }
        }
        BigInteger v = new BigInteger(s.substring(2), 16);
        return v.bitLength() > bits ? java.util.OptionalLong.empty() : java.util.OptionalLong.of(v.longValue());
    }
}
