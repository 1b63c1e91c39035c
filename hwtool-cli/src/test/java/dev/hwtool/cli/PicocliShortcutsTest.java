package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
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

    @Test
    void aConverterRegisteredOnOneCommandLineStaysThere() {
        CommandLine first = new CommandLine(new N());
        CommandLine second = new CommandLine(new N());
        first.registerConverter(Integer.TYPE, s -> 99);
        first.parseArgs("-n", "5");
        second.parseArgs("-n", "5");
        assertEquals(99, ((N) first.getCommand()).n);
        assertEquals(5, ((N) second.getCommand()).n, "the other CommandLine still has the built-in converter");
        CommandLine third = new CommandLine(new N());
        third.parseArgs("-n", "16");
        assertEquals(16, ((N) third.getCommand()).n);
    }

    @Test
    void theRegistryReadsItsOwnEntriesOverTheSharedOnes() {
        ITypeConverter<?> i1 = s -> 1;
        ITypeConverter<?> s1 = s -> "s";
        ITypeConverter<?> i2 = s -> 2;
        java.util.Map<Class<?>, ITypeConverter<?>> shared = java.util.Map.of(Integer.class, i1, String.class, s1);
        ConverterRegistry r = new ConverterRegistry();
        r.builtIns(shared);
        assertSame(i1, r.get(Integer.class));
        assertTrue(r.containsKey(String.class));
        assertFalse(r.containsKey(Long.class));
        assertNull(r.get(Long.class));
        assertSame(i1, r.put(Integer.class, i2));
        assertSame(i2, r.get(Integer.class));
        ConverterRegistry other = new ConverterRegistry();
        other.builtIns(shared);
        assertSame(i1, other.get(Integer.class));
        ConverterRegistry copy = new ConverterRegistry(); // CommandLine.copy: clear, then putAll
        copy.builtIns(shared);
        copy.clear();
        assertFalse(copy.containsKey(String.class));
        copy.putAll(r);
        assertSame(i2, copy.get(Integer.class));
        assertSame(s1, copy.get(String.class));
        ConverterRegistry merged = new ConverterRegistry();
        merged.put(Long.class, i2);
        merged.putAll(r);
        assertSame(i2, merged.get(Integer.class));
        assertSame(s1, merged.get(String.class));
        assertSame(i2, merged.get(Long.class));
        r.clear();
        assertFalse(r.containsKey(Integer.class));
    }

    @CommandLine.Command(name = "n")
    static final class N {
        @CommandLine.Option(names = "-n")
        int n;
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
