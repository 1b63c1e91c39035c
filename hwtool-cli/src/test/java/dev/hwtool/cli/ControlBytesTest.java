package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Terminal control sequences hidden in a user's input (a CPUID dump, a save file, a perf.data
 * command line, an argument) never reach the terminal raw: they show as escapes such as
 * {@code \x1b}. {@code --json} output escapes them as JSON does.
 */
class ControlBytesTest {

    /** Sets a window title, rings the bell, clears the screen; then C1 CSI and a right-to-left override. */
    private static final String HOSTILE = "\u001b]0;owned\u0007\u001b[2J\u009b1m\u202e";

    @TempDir
    Path dir;

    private static void assertNothingRaw(Run r) {
        String all = r.out() + r.err();
        for (int i = 0; i < all.length(); i++) {
            char c = all.charAt(i);
            boolean raw = (c < 0x20 && c != '\n') || c == 0x7f || (c >= 0x80 && c <= 0x9f) || c == '\u202e';
            assertFalse(raw, String.format("raw U+%04X at %d in%n%s", (int) c, i, r));
        }
    }

    private static String shippedDump() throws IOException {
        return shippedDump("amd-epyc-kvm-guest.cpuid-r.txt");
    }

    private static String shippedDump(String name) throws IOException {
        try (InputStream in = ControlBytesTest.class.getResourceAsStream("/dev/hwtool/sim/profiles/" + name)) {
            assertNotNull(in, "the shipped dump " + name);
            return new String(in.readAllBytes(), StandardCharsets.US_ASCII);
        }
    }

    /** The brand string packed into leaves 0x80000002..4 as CPUID returns it (little-endian, NUL-padded). */
    private static String brandLines(String brand) {
        byte[] b = new byte[48];
        byte[] s = brand.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(s, 0, b, 0, s.length);
        StringBuilder out = new StringBuilder();
        for (int leaf = 0; leaf < 3; leaf++) {
            out.append(String.format("   0x%08x 0x00:", 0x80000002 + leaf));
            String[] names = {"eax", "ebx", "ecx", "edx"};
            for (int r = 0; r < 4; r++) {
                int v = 0;
                for (int i = 0; i < 4; i++) {
                    v |= (b[leaf * 16 + r * 4 + i] & 0xff) << (8 * i);
                }
                out.append(String.format(" %s=0x%08x", names[r], v));
            }
            out.append('\n');
        }
        return out.toString();
    }

    @Test
    void aBrandStringOfControlBytesIsShownEscaped() throws IOException {
        String dump = shippedDump();
        int from = dump.indexOf("   0x80000002 0x00:");
        int to = dump.indexOf("   0x80000005 0x00:");
        assertTrue(from > 0 && to > from, "CPU 0's brand leaves");
        Path f = Files.writeString(dir.resolve("brand.txt"),
                dump.substring(0, from) + brandLines("AMD" + HOSTILE) + dump.substring(to), StandardCharsets.US_ASCII);
        Run r = Run.of("caps", "--cpuid-dump", f.toString());
        assertEquals(0, r.exit(), r.toString());
        assertNothingRaw(r);
        assertTrue(r.out().contains("AMD\\x1b]0;owned\\x07\\x1b[2J\\u009b1m"), r.out());
        Run json = Run.of("caps", "--json", "--cpuid-dump", f.toString());
        assertEquals(0, json.exit(), json.toString());
        assertTrue(json.out().contains("AMD\\u001B]0;owned\\u0007\\u001B[2J") || json.out().contains("AMD\\u001b]0;owned\\u0007\\u001b[2J"),
                json.out());
    }

    /**
     * picocli markup in a brand string is text: the headers of msr decode, msr list and caps print it
     * as the dump holds it (picocli's Ansi.string would have cut "@|bold " and "|@" out of it).
     */
    @Test
    void aBrandStringWithPicocliMarkupIsPrintedAsItIs() throws IOException {
        String dump = shippedDump();
        int from = dump.indexOf("   0x80000002 0x00:");
        int to = dump.indexOf("   0x80000005 0x00:");
        String brand = "Intel @|bold,red CPU|@ 1|@";
        Path f = Files.writeString(dir.resolve("markup.txt"),
                dump.substring(0, from) + brandLines(brand) + dump.substring(to), StandardCharsets.US_ASCII);
        for (String[] args : List.of(new String[]{"msr", "decode", "--backend", "sim", "--profile", f.toString(), "IA32_DEBUGCTL", "0x1"},
                new String[]{"msr", "list", "--backend", "sim", "--profile", f.toString()},
                new String[]{"caps", "--cpuid-dump", f.toString()})) {
            Run r = Run.of(args);
            assertEquals(0, r.exit(), r.toString());
            assertTrue(r.out().lines().findFirst().orElseThrow().endsWith(brand), r.out());
        }
    }

    @Test
    void controlBytesInADumpFileAreRefusedAndNotEchoed() throws IOException {
        String dump = shippedDump();
        Path f = Files.writeString(dir.resolve("esc.txt"), dump.replaceFirst("\n", "\n# " + HOSTILE + "\n"),
                StandardCharsets.UTF_8);
        Run r = Run.of("caps", "--cpuid-dump", f.toString());
        assertEquals(3, r.exit(), r.toString());
        assertEquals("hwtool: " + f + ":2: not text (byte 0x1b)\n", r.err());
        assertNothingRaw(r);
    }

    /** A success line echoes the output path the user gave: quoted too, a newline in it included. */
    @Test
    void anOutputPathOfControlBytesIsEchoedEscaped() throws IOException {
        Path out = dir.resolve("save" + HOSTILE + "\nline2.json");
        Run r = Run.of("msr", "save", "IA32_DEBUGCTL", "-o", out.toString(), "--backend", "sim", "--profile", "skylake");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(Files.isRegularFile(out), "the file is written under the name given");
        String line = r.err().lines().filter(l -> l.startsWith("hwtool: msr save: saved")).findFirst().orElseThrow();
        assertTrue(line.contains("\\x1b]0;owned\\x07"), line);
        assertTrue(line.endsWith("\\x0aline2.json"), "one line, the newline shown: " + line);
        assertEquals(-1, r.err().indexOf('\u001b'), r.err());
        assertEquals(-1, r.err().indexOf('\u0007'), r.err());
    }

    @Test
    void aSaveFileRegisterNameIsShownEscaped() throws IOException {
        // JSON may carry any character escaped: the name decodes to ESC sequences.
        Path f = Files.writeString(dir.resolve("s.json"), """
                {"format": "hwtool-msr-save", "version": 1, "time": "t", "backend": "x\\u001b[2J", "simulated": true,
                 "registers": [{"cpu": 0, "msr": "0x000001d9", "name": "\\u001b]0;owned\\u0007", "value": "0x0000000000000000"}]}
                """);
        Run other = Run.of("msr", "restore", "--backend", "sim", "--profile", "skylake", f.toString());
        assertEquals(3, other.exit(), other.toString());
        assertTrue(other.err().contains("was saved on x\\x1b[2J, not on"), other.err());
        assertNothingRaw(other);
        Run forced = Run.of("msr", "restore", "--force", "--backend", "sim", "--profile", "skylake", f.toString());
        assertEquals(3, forced.exit(), forced.toString());
        assertTrue(forced.err().contains("MSR 0x000001d9 is IA32_DEBUGCTL, not \\x1b]0;owned\\x07: nothing written"),
                forced.err());
        assertNothingRaw(forced);
    }

    @Test
    void aRecordingsCommandLineIsShownEscapedInTheReportHeader() throws IOException {
        Path trace = Files.writeString(dir.resolve("t" + HOSTILE + ".trace"), "0x401000 0x402000 call\n0x402010 0x401005 ret\n");
        Path data = dir.resolve("r.data");
        Run rec = Run.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", data.toString(), "--",
                "trace", trace.toString());
        assertEquals(0, rec.exit(), rec.toString());
        assertNothingRaw(rec);
        for (String report : new String[] {"report", "report --trace"}) {
            String[] args = ("bts " + report + " " + data).split(" ");
            Run r = Run.of(args);
            assertEquals(0, r.exit(), r.toString());
            assertNothingRaw(r);
            assertTrue(r.out().contains("# target:  trace " + dir + "/t\\x1b]0;owned\\x07\\x1b[2J\\u009b1m\\u202e.trace"),
                    r.out());
        }
    }

    /** A dump file whose very name is hostile, used as a simulator profile by every kind of command. */
    @Test
    void aProfileFileNameIsShownEscapedEverywhere() throws IOException {
        Path f = Files.writeString(dir.resolve("p" + HOSTILE + ".txt"), shippedDump("skylake.txt"), StandardCharsets.US_ASCII);
        Path script = Files.writeString(dir.resolve("s.hwsim"), "cpus 1\nbranches 3\nexpect instructions 3\n");
        Path data = dir.resolve("p.data");
        String p = f.toString();
        String[][] commands = {
                {"caps", "--cpuid-dump", p}, {"caps", "--backend", "sim", "--profile", p},
                {"cpuid", "--backend", "sim", "--profile", p, "-1", "-l", "0"},
                {"rdmsr", "--backend", "sim", "--profile", p, "0x10"},
                {"msr", "list", "--backend", "sim", "--profile", p}, {"msr", "decode", "--backend", "sim", "--profile", p, "IA32_DEBUGCTL", "1"},
                {"sim", "run", "--profile", p, script.toString()},
                {"bts", "record", "--backend", "sim", "--profile", p, "-o", data.toString(), "--", "loop", "iterations=10"},
                {"bts", "report", data.toString()},
                {"stat", "--backend", "sim", "--profile", p, "--", "loop", "iterations=10"}};
        for (String[] c : commands) {
            Run r = Run.of(c);
            assertEquals(0, r.exit(), String.join(" ", c) + ": " + r);
            assertNothingRaw(r);
        }
    }

    @Test
    void anArgumentInAnErrorIsShownEscaped() {
        Run bad = Run.of("rdmsr", "\u001b[31mIA32_NOPE");
        assertTrue(bad.exit() != 0, bad.toString());
        assertNothingRaw(bad);
        assertTrue(bad.err().contains("\\x1b[31mIA32_NOPE"), bad.err());
        Run missing = Run.of("sim", "run", dir.resolve("no" + HOSTILE).toString());
        assertEquals(3, missing.exit(), missing.toString());
        assertNothingRaw(missing);
        Run option = Run.of("caps", "--\u001b[2J");
        assertEquals(2, option.exit(), option.toString());
        assertNothingRaw(option);
    }
}
