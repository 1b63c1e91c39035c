package dev.hwtool.io;

/**
 * Text from a file, a recording or an argument, made safe to print on a terminal: every
 * character that a terminal would act on instead of showing becomes a visible escape, so that
 * a CPUID dump, a save file or a perf.data command line cannot move the cursor, change colours,
 * set the window title, ring the bell, start a new line or reorder what follows it.
 *
 * <ul>
 *   <li>C0 controls (U+0000..U+001F, including ESC, BEL, TAB, CR and LF) and DEL: {@code \x1b}</li>
 *   <li>C1 controls (U+0080..U+009F; U+009B is CSI on terminals that honour 8-bit controls):
 *       a backslash, {@code u} and four hex digits, as Java writes them</li>
 *   <li>the Unicode line and paragraph separators U+2028/U+2029 and the bidirectional
 *       formatting characters (U+061C, U+200E, U+200F, U+202A..U+202E, U+2066..U+2069: the
 *       "Trojan Source" characters, CVE-2021-42574) and unpaired surrogates: the same</li>
 * </ul>
 * Everything else, other non-ASCII letters included, is kept. A backslash is kept as it is,
 * so the escapes are for reading, not for decoding back. JSON output needs none of this: JSON
 * escapes control characters itself.
 */
public final class TerminalText {

    private TerminalText() {
    }

    /**
     * {@code s} with every character a terminal would act on shown as an escape; null as "null".
     * A String with nothing to escape is returned as it is.
     */
    public static String quote(CharSequence s) {
        if (s == null) {
            return "null";
        }
        if (!needsQuoting(s)) {
            return s.toString();
        }
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                b.append(c).append(s.charAt(++i));
            } else if (shown(c)) {
                b.append(c);
            } else {
                b.append(String.format(c < 0x80 ? "\\x%02x" : "\\u%04x", (int) c));
            }
        }
        return b.toString();
    }

    /** As {@link #quote}, cut to at most {@code max} characters of {@code s} with "..." after. */
    public static String quote(CharSequence s, int max) {
        if (s != null && s.length() > max) {
            int end = Character.isHighSurrogate(s.charAt(max - 1)) ? max - 1 : max;
            return quote(s.subSequence(0, end)) + "...";
        }
        return quote(s);
    }

    /** Whether {@link #quote} would change {@code s}. */
    public static boolean needsQuoting(CharSequence s) {
        if (s == null) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (Character.isHighSurrogate(c) && i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1))) {
                i++;
            } else if (!shown(c)) {
                return true;
            }
        }
        return false;
    }

    /** Whether a terminal shows {@code c} as itself (a surrogate here is unpaired). */
    private static boolean shown(char c) {
        return c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f) && c != '\u2028' && c != '\u2029' && !bidi(c)
                && !Character.isSurrogate(c);
    }

    private static boolean bidi(char c) {
        return c == '\u061c' || c == '\u200e' || c == '\u200f' || (c >= '\u202a' && c <= '\u202e')
                || (c >= '\u2066' && c <= '\u2069');
    }
}
