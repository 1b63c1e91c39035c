package dev.hwtool.sim.script;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.BoundedText;
import dev.hwtool.io.TerminalText;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Damaged scenario files, read as {@code hwtool sim run FILE} reads them (bounded text, then the
 * parser): every prefix and every single-byte change of a shipped scenario is refused in one line
 * of BAD_INPUT or parsed; a prefix of whole lines parses to the first commands of the original.
 */
class ScenarioFileFuzzTest {

    private static final String NAME = "freeze-streamlined-v4-skylake";
    private static final byte[] BYTES = Scenarios.text(NAME).orElseThrow().getBytes(StandardCharsets.UTF_8);
    private static final List<String> ORIGINAL = sources(ScriptParser.parse("f.hwsim", Scenarios.text(NAME).orElseThrow()));

    private static List<String> sources(Script s) {
        return s.commands().stream().map(Command::source).toList();
    }

    /** The script in {@code bytes}, or null when refused (checked to be one clean line). */
    private static Script readOrRefused(byte[] bytes) {
        try {
            return ScriptParser.parse("f.hwsim", BoundedText.read(new ByteArrayInputStream(bytes), "f.hwsim"));
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause(), e.getMessage());
            assertEquals(1, e.getMessage().lines().count(), e.getMessage());
            assertFalse(TerminalText.needsQuoting(e.getMessage()), e.getMessage());
            assertTrue(e.getMessage().matches("f\\.hwsim:\\d+: .*"), e.getMessage());
            return null;
        }
    }

    @Test
    void everyPrefixIsRefusedOrParsesAsTheOriginalsFirstCommands() {
        assertTrue(ORIGINAL.size() > 5, NAME + " has commands");
        for (int n = 0; n <= BYTES.length; n++) {
            Script s = readOrRefused(Arrays.copyOf(BYTES, n));
            if (s != null && (n == 0 || BYTES[n - 1] == '\n')) {
                List<String> got = sources(s);
                assertEquals(ORIGINAL.subList(0, got.size()), got, "cut at " + n);
            }
        }
        assertEquals(ORIGINAL, sources(readOrRefused(BYTES)));
    }

    @Property(tries = 2000)
    void everySingleByteChangeIsRefusedOrParses(@ForAll @IntRange(min = 0, max = 100_000) int at, @ForAll byte value) {
        byte[] b = BYTES.clone();
        b[at % b.length] = value;
        readOrRefused(b);
    }
}
