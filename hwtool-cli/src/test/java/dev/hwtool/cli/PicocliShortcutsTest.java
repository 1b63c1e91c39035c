package dev.hwtool.cli;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The shortcuts picocli-patch.sh gives picocli answer as picocli's own code does. */
class PicocliShortcutsTest {

    @Test
    void whatMayNotBeANumberNeitherParserTakes() {
        List<String> cases = new ArrayList<>(List.of("", " ", "-", "+", "--5", "IA32_DEBUGCTL", "0x1", "-0x1", "#ff", "-#1",
                "1", " 1", "\t-2.5 ", ".5", "-.5e3", "NaN", "-Infinity", "+Infinity", "0X1p3", "1f", "5d", "x1", "e5",
                "--help", "-h", "\u0663", "-\u0663", "\uff11", "Nope", "Inf", "1_000", "0b1"));
        Random r = new Random(13);
        String alphabet = " \t+-.#0123456789xXpPeEfFdDNaIinfty_\u0663";
        for (int i = 0; i < 20000; i++) {
            StringBuilder b = new StringBuilder();
            for (int n = r.nextInt(6); n > 0; n--) {
                b.append(alphabet.charAt(r.nextInt(alphabet.length())));
            }
            cases.add(b.toString());
        }
        for (String s : cases) {
            if (!PicocliShortcuts.mayBeNumber(s)) {
                assertFalse(parses(s), "'" + s + "' parses, yet mayBeNumber says it cannot");
            }
        }
        assertFalse(PicocliShortcuts.mayBeNumber("IA32_DEBUGCTL"));
        assertTrue(PicocliShortcuts.mayBeNumber("0x1"));
        assertTrue(PicocliShortcuts.mayBeNumber(" -Infinity"));
    }

    private static boolean parses(String s) {
        try {
            Long.decode(s);
            return true;
        } catch (NumberFormatException e) {
            // and the other
        }
        try {
            Double.parseDouble(s);
            return true;
        } catch (NumberFormatException e) {
            return false;
        }
    }
}
