package dev.hwtool.cli;

import picocli.CommandLine.Help.Ansi;
import picocli.CommandLine.Help.Ansi.IStyle;
import picocli.CommandLine.Help.Ansi.Style;

/**
 * Text in ANSI styles, the text taken as it is. picocli's {@code Ansi.string("@|bold ...|@")} reads
 * its whole argument as markup, so a CPU brand string from a dump file that holds "@|" or "|@" came
 * out altered (with colors off, the markers and style names were cut out of it); and it parses that
 * markup on every call, a twentieth of a batch line of {@code msr decode}. Here only the style names
 * are parsed; with colors off the text is returned as it is, which is what picocli prints for text
 * without markup. With colors on the escape codes are picocli's own for {@code @|styles text|@}:
 * the styles on, the text, the styles off in reverse order, then a reset (StylesTest compares them).
 */
final class Styled {

    private Styled() {
    }

    /** {@code plain} in {@code styles} (picocli's names, comma-separated: "red,bold") when {@code ansi} is on. */
    static String of(Ansi ansi, String styles, String plain) {
        if (!ansi.enabled()) {
            return plain;
        }
        IStyle[] on = Style.parse(styles);
        IStyle[] off = new IStyle[on.length];
        for (int i = 0; i < on.length; i++) {
            off[i] = on[on.length - 1 - i];
        }
        return Style.on(on) + plain + Style.off(off) + Style.reset.on();
    }
}
