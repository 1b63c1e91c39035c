package dev.hwtool.cli;

/**
 * What src/build/picocli-patch.sh has picocli call instead of work it repeats for every model and
 * parse (a batch builds and parses one per line). Each answers as picocli's own code would.
 */
public final class PicocliShortcuts {

    private PicocliShortcuts() {
    }

    /**
     * False only when neither {@link Long#decode} nor {@link Double#parseDouble} can parse {@code s}:
     * picocli's CommandSpec.resemblesOption tries both on every positional argument and default
     * value that is not an option name, and each failure is a NumberFormatException with its stack
     * trace. Long.decode takes an optional sign, then a digit or '#' ("0x" starts with a digit);
     * Double.parseDouble (FloatingDecimal.readJavaFormatString) trims characters up to U+0020, then
     * an optional sign, then a digit, '.', or exactly "NaN" or "Infinity". Anything else fails both; whatever
     * might parse is left to picocli's own tries.
     */
    public static boolean mayBeNumber(String s) {
        int i = 0;
        int n = s.length();
        while (i < n && s.charAt(i) <= ' ') {
            i++;
        }
        if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
            i++;
        }
        if (i >= n) {
            return false;
        }
        char c = s.charAt(i);
        if (c == 'N' || c == 'I') {
            // the rest, trimmed, must be exactly NaN or Infinity ("IA32_DEBUGCTL" is not)
            String rest = s.substring(i).trim();
            return rest.equals("NaN") || rest.equals("Infinity");
        }
        return Character.isDigit(c) || c == '.' || c == '#';
    }
}
