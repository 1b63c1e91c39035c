package dev.hwtool.sim.workload;

import dev.hwtool.io.TerminalText;

/**
 * The lexical rules that trace files and workload specs share: unsigned 64-bit numbers and
 * how an offending token is shown in a one-line message.
 */
final class Lexical {

    /** Longest token shown in a message; the rest is elided so a message stays one short line. */
    private static final int SHOWN = 40;

    static final String NUMBER_FORM = "0x-hex or decimal, unsigned 64-bit";

    private Lexical() {
    }

    /**
     * "0x"/"0X" then 1..16 hex digits, or decimal digits up to 2^64-1. ASCII digits only: the JDK
     * parsers also take a leading '+' and non-ASCII digits, which a trace must not contain.
     *
     * @throws NumberFormatException when {@code s} is not such a number
     */
    static long parseUnsigned(String s) {
        int radix = 10;
        int start = 0;
        if (s.length() > 2 && s.charAt(0) == '0' && (s.charAt(1) == 'x' || s.charAt(1) == 'X')) {
            radix = 16;
            start = 2;
        }
        if (start == s.length()) {
            throw new NumberFormatException(s);
        }
        for (int i = start; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean ok = (c >= '0' && c <= '9')
                    || (radix == 16 && ((c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')));
            if (!ok) {
                throw new NumberFormatException(s);
            }
        }
        return Long.parseUnsignedLong(s, start, s.length(), radix);
    }

    /** {@code token} fit for a one-line message: terminal controls escaped ({@link TerminalText}), long ones cut. */
    static String show(String token) {
        return TerminalText.quote(token, SHOWN);
    }

    /** {@code s} with terminal controls escaped ({@link TerminalText}), so it cannot break a message's line. */
    static String escape(String s) {
        return TerminalText.quote(s);
    }
}
