package dev.hwtool.io;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TerminalTextTest {

    @Test
    void controlsBecomeVisibleEscapes() {
        assertEquals("\\x1b[31mred\\x1b[0m\\x07", TerminalText.quote("\u001b[31mred\u001b[0m\u0007"));
        assertEquals("a\\x0ab\\x0dc\\x09d\\x00\\x7f", TerminalText.quote("a\nb\rc\td\u0000\u007f"));
        assertEquals("\\u009b31m", TerminalText.quote("\u009b31m"), "C1 CSI");
        assertEquals("x\\u2028y\\u2029", TerminalText.quote("x\u2028y\u2029"));
        assertEquals("\\u202eevil\\u202c \\u2066\\u2069\\u200e\\u200f\\u061c",
                TerminalText.quote("\u202eevil\u202c \u2066\u2069\u200e\u200f\u061c"), "bidirectional overrides");
        assertEquals("\\ud800x", TerminalText.quote("\ud800x"), "unpaired surrogate");
    }

    @Test
    void printableTextIsKept() {
        String s = "Intel(R) Core(TM) i7 – Barceló µm \\ 日本 \ud83d\ude00";
        assertEquals(s, TerminalText.quote(s));
        assertFalse(TerminalText.needsQuoting(s));
        assertEquals("null", TerminalText.quote(null));
    }

    @Test
    void cutsLongTextAfterEscaping() {
        assertEquals("abc...", TerminalText.quote("abcdef", 3));
        assertEquals("\\x1bb...", TerminalText.quote("\u001bbcdef", 2));
        assertEquals("abcdef", TerminalText.quote("abcdef", 6));
    }

    @Property(tries = 2000)
    void nothingATerminalActsOnSurvives(@ForAll String s) {
        String q = TerminalText.quote(s);
        for (int i = 0; i < q.length(); i++) {
            char c = q.charAt(i);
            assertTrue(c >= 0x20 && c != 0x7f && !(c >= 0x80 && c <= 0x9f) && c != '\u2028' && c != '\u2029'
                    && !(c >= '\u202a' && c <= '\u202e') && !(c >= '\u2066' && c <= '\u2069'), q);
        }
        assertEquals(q, TerminalText.quote(q), "quoting its own output changes nothing");
    }
}
