package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.TerminalText;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MsrSaveFileTest {

    private static final MsrSaveFile SAMPLE = new MsrSaveFile("2025-01-01T00:00:00Z", "sim:skylake", true, List.of(
            new MsrSaveFile.Register(0, 0x1D9, "IA32_DEBUGCTL", 0x4801),
            new MsrSaveFile.Register(7, 0xC000_0080L, null, -1L)));

    @Test
    void roundTrip(@TempDir Path dir) {
        Path f = dir.resolve("regs.json");
        SAMPLE.write(dev.hwtool.io.OutputFile.open(f));
        assertEquals(SAMPLE, MsrSaveFile.read(f));
    }

    /** One line, ours: no JSON library wording, nothing a terminal would act on. */
    private static void assertOurOneLine(HwException e) {
        assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
        String m = e.getMessage();
        assertEquals(1, m.lines().count(), m);
        assertFalse(TerminalText.needsQuoting(m), m);
        for (String jackson : new String[] {"REDACTED", "StreamReadFeature", "START_OBJECT", "Source:", "Can not",
                "Unexpected character", "Unrecognized token", "code 1", "end-of-input", "JSON Array"}) {
            assertFalse(m.contains(jackson), m);
        }
    }

    @Test
    void everyTruncationIsRefusedAsBadInputInOneLine(@TempDir Path dir) throws IOException {
        byte[] full = SAMPLE.toJson().getBytes(StandardCharsets.UTF_8);
        Path f = dir.resolve("cut.json");
        int last = SAMPLE.toJson().stripTrailing().length();
        for (int n = 0; n < last; n++) {
            Files.write(f, Arrays.copyOf(full, n));
            HwException e = assertThrows(HwException.class, () -> MsrSaveFile.read(f), "cut at " + n);
            assertOurOneLine(e);
        }
        for (int n = last; n <= full.length; n++) {
            Files.write(f, Arrays.copyOf(full, n));
            assertEquals(SAMPLE, MsrSaveFile.read(f), "only trailing white space cut");
        }
    }

    @Test
    void syntaxErrorsSayWhereAndWhatWasExpected(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("s.json");
        String[][] cases = {
                {"", "empty file"},
                {"[1]", "line 1, column 1: expected a JSON object '{...}', found an array"},
                {"\"x\"", "line 1, column 1: expected a JSON object '{...}', found a string"},
                {"{\"a\" 1}", "line 1, column 6: expected ':' after the field name, found '1'"},
                {"{\"a\":1\n \"b\":2}", "line 2, column 2: expected ',' or '}' after a field, found '\"'"},
                {"{a:1}", "line 1, column 2: expected a field name in double quotes, found 'a'"},
                {"{\"a\":tru}", "expected a value (string, number, object, array, true, false or null)"},
                {"{\"a\":", "the JSON ends early (is the file truncated?)"},
                {"{\"a\":1} x", "line 1, column 8: text after the end of the JSON object"},
                {"{\"a\":1}}", "text after the end of the JSON object"},
                {"{\"a\":1,\"a\":2}", "a field appears twice in one object"},
                {"{\"a\":\"x\ty\"}", "a control character inside a string (JSON needs it escaped)"}};
        for (String[] c : cases) {
            Files.writeString(f, c[0]);
            HwException e = assertThrows(HwException.class, () -> MsrSaveFile.read(f), c[0]);
            assertOurOneLine(e);
            assertTrue(e.getMessage().startsWith(f + " is not a usable hwtool msr save file: "), e.getMessage());
            assertTrue(e.getMessage().contains(c[1]), c[0] + " -> " + e.getMessage());
        }
    }

    @Test
    void bytesThatAreNotTextAreRefusedWhereTheyAre(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("b.json");
        Files.write(f, new byte[] {'{', '\n', '\n', 0, '}'});
        assertEquals(f + ":3: not text (byte 0x00)", assertThrows(HwException.class, () -> MsrSaveFile.read(f)).getMessage());
        Files.write(f, new byte[] {'{', (byte) 0xfe, '}'});
        assertEquals(f + ":1: not UTF-8 text (byte 0xfe)", assertThrows(HwException.class, () -> MsrSaveFile.read(f)).getMessage());
    }

    /** Every single-byte change of a valid file: refused in one line of ours, or read as a valid save file. */
    @Property(tries = 1500)
    void everySingleByteChangeIsRefusedCleanlyOrRead(@ForAll @IntRange(min = 0, max = 10_000) int at, @ForAll byte value)
            throws IOException {
        byte[] b = SAMPLE.toJson().getBytes(StandardCharsets.UTF_8);
        b[at % b.length] = value;
        Path dir = Files.createTempDirectory("savefile-fuzz");
        Path f = dir.resolve("f.json");
        try {
            Files.write(f, b);
            MsrSaveFile read = MsrSaveFile.read(f);
            assertEquals(SAMPLE.registers().size(), read.registers().size(), "a change cannot add or drop registers");
        } catch (HwException e) {
            assertOurOneLine(e);
        } finally {
            Files.deleteIfExists(f);
            Files.delete(dir);
        }
    }

    @Test
    void editedValuesAreRefused(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("bad.json");
        for (String[] edit : new String[][]{{"\"0x0000000000004801\"", "\"4801\""}, {"\"0x000001d9\"", "\"0x1000001d9\""},
                {"\"cpu\" : 7", "\"cpu\" : -7"}, {"\"cpu\" : 7", "\"cpu\" : 1.5"}, {"hwtool-msr-save", "other"},
                {"\"version\" : 1", "\"version\" : 2"}}) {
            String text = SAMPLE.toJson();
            assertTrue(text.contains(edit[0]), edit[0] + " in\n" + text);
            Files.writeString(f, text.replace(edit[0], edit[1]));
            HwException e = assertThrows(HwException.class, () -> MsrSaveFile.read(f), edit[1]);
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
        }
    }
}
