package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine.Help.Ansi;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

class StyledTest {

    /** Every style the CLI uses. */
    private static final List<String> STYLES = List.of("bold", "bold,underline", "yellow,bold", "red,bold",
            "green,bold", "green", "faint", "cyan");

    @Test
    void plainTextComesOutAsPicocliMarkupWouldPrintIt() {
        for (Ansi ansi : List.of(Ansi.ON, Ansi.OFF)) {
            for (String style : STYLES) {
                for (String text : List.of("hwtool caps", " yes ", "IA32_DEBUGCTL (0x1d9) = 0x1", "fix:")) {
                    assertEquals(ansi.string("@|" + style + " " + text + "|@"), Styled.of(ansi, style, text),
                            ansi + " " + style + " '" + text + "'");
                }
            }
        }
    }

    /** A brand string from a dump is CPUID bytes: "@|" and "|@" in it are text, not styles. */
    @Test
    void markupInTheTextIsKeptAsText() {
        String brand = "Fake @|red,bold CPU|@ 3000 |@";
        assertEquals(brand, Styled.of(Ansi.OFF, "bold", brand));
        String on = Styled.of(Ansi.ON, "bold", brand);
        assertEquals("\u001b[1m" + brand + "\u001b[21m\u001b[0m", on);
    }
}
