package dev.hwtool.cli;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** hwtool batch, in-process: the same bytes as the lines run one by one, per-line isolation, bounded input. */
class BatchTest {

    @TempDir
    Path dir;

    private InputStream stdin;

    @BeforeEach
    void setUp() {
        stdin = System.in;
        // wrmsr on the simulator journals its writes: keep the journal out of the home directory.
        System.setProperty("hwtool.state.dir", dir.resolve("state").toString());
    }

    @AfterEach
    void tearDown() {
        System.setIn(stdin);
        System.clearProperty("hwtool.state.dir");
    }

    private static final String SIM = "--backend sim --profile skylake";

    /** Lines as a person would type them, and the same commands as argument arrays. */
    private static final List<String> LINES = List.of(
            "# a comment, then a blank line",
            "",
            "cpuid " + SIM + " -1 -l 0",
            "cpuid -1 -l 0",
            "rdmsr " + SIM + " 0x1d9",
            "rdmsr " + SIM + " 0x12345678",
            "msr decode IA32_DEBUGCTL 0x1",
            "frobnicate",
            "rdmsr " + SIM + " -x --bogus 0x10",
            "profiles --json",
            "rdmsr " + SIM + " -r 0x345",
            "caps --json " + SIM);

    private static String[] words(String line) {
        return line.split(" ");
    }

    @Test
    void printsExactlyWhatTheCommandsPrintRunOneByOne() throws IOException {
        ByteArrayOutputStream aloneOut = new ByteArrayOutputStream();
        StringBuilder aloneErr = new StringBuilder();
        int firstFailure = 0;
        for (String line : LINES) {
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            Run r = Run.of(words(line));
            aloneOut.writeBytes(r.bytes());
            aloneErr.append(r.err());
            if (firstFailure == 0) {
                firstFailure = r.exit();
            }
        }
        Path file = write(String.join("\n", LINES) + "\n");
        Run batch = Run.of("batch", file.toString());
        assertArrayEquals(aloneOut.toByteArray(), batch.bytes(), batch.toString());
        assertEquals(aloneErr.toString(), batch.err());
        assertEquals(4, firstFailure, "rdmsr of an MSR the simulated skylake lacks: no such MSR for msr-tools");
        assertEquals(firstFailure, batch.exit(), "the first non-zero exit code");
        assertTrue(batch.err().contains("rdmsr: CPU 0 cannot read MSR 0x12345678"), batch.err());
        assertTrue(batch.err().contains("'frobnicate'"), "an unknown command has its own error: " + batch.err());
    }

    @Test
    void eachBadLineReportsItselfAndTheOthersStillRun() throws IOException {
        Run r = batch("frobnicate\nprofiles --bogus\nmsr decode IA32_DEBUGCTL 0x1\n");
        assertEquals(2, r.exit(), r.toString());
        assertEquals(Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").out(), r.out());
        assertEquals(Run.of("frobnicate").err() + Run.of("profiles", "--bogus").err(), r.err());
    }

    @Test
    void stopOnErrorStopsAfterTheFirstFailingLine() throws IOException {
        Path file = write("rdmsr " + SIM + " 0x12345678\nmsr decode IA32_DEBUGCTL 0x1\n");
        Run stop = Run.of("batch", "--stop-on-error", file.toString());
        assertEquals(4, stop.exit(), stop.toString());
        assertEquals("", stop.out(), "the line after the failure did not run");
        Run keep = Run.of("batch", "--keep-going", file.toString());
        assertEquals(4, keep.exit(), keep.toString());
        assertEquals(Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").out(), keep.out());
        assertEquals(2, Run.of("batch", "--keep-going", "--stop-on-error", file.toString()).exit());
    }

    @Test
    void anEmptyBatchOrOneOfCommentsDoesNothingAndSucceeds() throws IOException {
        for (String text : List.of("", "\n\n", "# only a comment\n   \t\n#\n")) {
            Run r = batch(text);
            assertEquals(0, r.exit(), r.toString());
            assertEquals("", r.out());
            assertEquals("", r.err());
        }
    }

    @Test
    void readsStandardInputWithDashOrNoOperand() {
        String text = "msr decode IA32_DEBUGCTL 0x1\nprofiles\n";
        String expected = Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").out() + Run.of("profiles").out();
        for (String[] args : List.of(new String[]{"batch"}, new String[]{"batch", "-"})) {
            System.setIn(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
            Run r = Run.of(args);
            assertEquals(0, r.exit(), r.toString());
            assertEquals(expected, r.out());
        }
    }

    @Test
    void aMissingFileIsBadInput() {
        Run r = Run.of("batch", dir.resolve("none.txt").toString());
        assertEquals(3, r.exit(), r.toString());
        assertEquals("hwtool: batch: cannot read " + dir.resolve("none.txt") + ": no such file\n", r.err());
    }

    @Test
    void linesStartFromBootStateWithNoOptionsCarriedOver() throws IOException {
        // wrmsr on line 1 is not visible to rdmsr on line 2: each line has its own simulated machine.
        Run r = batch("wrmsr --profile skylake 0x1d9 0x1\nrdmsr --profile skylake 0x1d9\n"
                + "cpuid " + SIM + " -1 -l 0\ncpuid -1 -l 0\n");
        assertEquals(Run.of("rdmsr", "--profile", "skylake", "0x1d9").out()
                + Run.of("cpuid", "--backend", "sim", "--profile", "skylake", "-1", "-l", "0").out()
                + Run.of("cpuid", "-1", "-l", "0").out(), r.out(), r.toString());
        assertTrue(r.out().startsWith("0\n"), "IA32_DEBUGCTL at its boot value: " + r);
        Run host = Run.of("cpuid", "-1", "-l", "0");
        assertEquals(host.exit(), r.exit(), "the last line used this machine, not the previous line's --profile");
    }

    @Test
    void quotingIsTheShells() throws IOException {
        Run r = batch("msr   decode\t'IA32_DEBUGCTL' \"0x\"1\nmsr decode IA32\\_DEBUGCTL 0x1 # comment\n");
        String one = Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").out();
        assertEquals(0, r.exit(), r.toString());
        assertEquals(one + one, r.out());
    }

    @Test
    void wordsSplitAsAPosixShellSplitsThem() throws BatchWords.SyntaxError {
        assertEquals(List.of("a", "b c", "d'e", "f\"g", "h\\i", "$x", "j#k", "", "l"),
                BatchWords.split(" a 'b c' \"d'e\" 'f\"g' \"h\\i\" '$x' j#k '' l #m"));
        assertEquals(List.of("a$b", "c\\d", "e"), BatchWords.split("\"a\\$b\" c\\\\d \\e"));
        assertEquals(List.of(), BatchWords.split("   # nothing"));
        for (String bad : List.of("a 'b", "a \"b", "a b\\", "a | b", "a > f", "a; b", "a $x", "a `b`", "\"$x\"", "a & ",
                "a\r")) {
            assertThrows(BatchWords.SyntaxError.class, () -> BatchWords.split(bad), bad);
        }
    }

    @Test
    void aLineThatDoesNotParseIsThatLinesUsageError() throws IOException {
        Run r = batch("rdmsr 'open\nrdmsr 0x10 > out\nmsr decode IA32_DEBUGCTL 0x1\n");
        assertEquals(2, r.exit(), r.toString());
        List<String> err = r.err().lines().toList();
        assertEquals(2, err.size(), r.err());
        assertTrue(err.get(0).startsWith("hwtool: batch line 1: unterminated single quote"), r.err());
        assertTrue(err.get(1).startsWith("hwtool: batch line 2: '>' would mean an operator"), r.err());
        assertEquals(Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").out(), r.out());
    }

    @Test
    void commandsThatCannotWorkInABatchAreRefusedInOneLine() throws IOException {
        String text = "batch\nmsr watch " + SIM + " 0x10\nsim run -\nstat -- true\n"
                + "lbr record " + SIM + " -o " + dir.resolve("x.data") + " -- trace -\n"
                + "sim mount " + dir + "\nexporter\nsim exec -- true\nrecord -- true\nmsr decode IA32_DEBUGCTL 0x1\n";
        System.setIn(new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8)));
        Run r = Run.of("batch");
        assertEquals(2, r.exit(), r.toString());
        List<String> err = r.err().lines().toList();
        assertEquals(List.of(
                "hwtool: batch line 1: a batch cannot run 'batch'",
                "hwtool: batch line 2: 'msr watch' without -n runs until interrupted, and the lines after it would never run; give -n N",
                "hwtool: batch line 3: 'sim run -' would read the batch's own lines; give the script as a file",
                "hwtool: batch line 4: 'stat' runs a program, which would read the batch's own lines from standard input;"
                        + " give the batch as a file",
                "hwtool: batch line 5: a 'trace -' workload would read the batch's own lines; give the trace as a file",
                "hwtool: batch line 6: 'sim mount' serves until interrupted, and the lines after it would never run;"
                        + " run it on its own",
                "hwtool: batch line 7: 'exporter' serves until interrupted, and the lines after it would never run;"
                        + " run it on its own",
                "hwtool: batch line 8: 'sim exec' runs a program, which would read the batch's own lines from standard"
                        + " input; give the batch as a file",
                "hwtool: batch line 9: 'record' runs a program, which would read the batch's own lines from standard"
                        + " input; give the batch as a file"), err);
        assertEquals(Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").out(), r.out());
        // --help still works, and a bounded watch is fine.
        Run ok = batch("batch --help\nmsr watch " + SIM + " -n 1 -i 1ms 0x1d9\n");
        assertEquals(0, ok.exit(), ok.toString());
        assertTrue(ok.out().contains("Usage: hwtool batch"), ok.out());
    }

    @Test
    void inputWithoutNewlinesEndsAfterTheLineLimit() throws IOException {
        // /dev/zero: endless NULs, no newline.
        System.setIn(new InputStream() {
            @Override
            public int read() {
                return 0;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                java.util.Arrays.fill(b, off, off + len, (byte) 0);
                return len;
            }
        });
        Run r = Run.of("batch");
        assertEquals(2, r.exit(), r.toString());
        assertEquals("hwtool: batch line 1: longer than 65536 bytes; the batch stops here\n", r.err());
        Run nul = batch("profiles\nmsr decode IA32_DEBUGCTL\0 0x1\nprofiles\n");
        assertEquals(2, nul.exit(), nul.toString());
        assertEquals("hwtool: batch line 2: not text (byte 0x00): binary input is not command lines; the batch stops here\n",
                nul.err());
        assertEquals(Run.of("profiles").out(), nul.out(), "the line before ran, the one after did not");
        Run utf8 = batch("profiles\nmsr decode IA32_DEBUGCTL 0x1 # caf\u00e9\n");
        assertEquals(0, utf8.exit(), "UTF-8 is text: " + utf8);
        Path bin = write("");
        java.nio.file.Files.write(bin, new byte[]{'p', 'r', (byte) 0xff, '\n', 'p', 'r', 'o', 'f', 'i', 'l', 'e', 's', '\n'});
        Run notUtf8 = Run.of("batch", bin.toString());
        assertEquals(2, notUtf8.exit(), notUtf8.toString());
        assertEquals("", notUtf8.out());
    }

    /** Endless random bytes (/dev/urandom) end the batch at its first line, not after a flood of errors. */
    @Test
    void endlessRandomInputEndsAtOnce() {
        java.util.Random random = new java.util.Random(26);
        long[] served = {0};
        System.setIn(new InputStream() {
            @Override
            public int read() {
                served[0]++;
                return random.nextInt(256);
            }

            @Override
            public int read(byte[] b, int off, int len) {
                for (int i = off; i < off + len; i++) {
                    b[i] = (byte) random.nextInt(256);
                }
                served[0] += len;
                return len;
            }
        });
        Run r = Run.of("batch");
        assertEquals(2, r.exit(), r.toString());
        assertEquals(1, r.err().lines().count(), r.toString());
        assertTrue(r.err().startsWith("hwtool: batch line 1: not "), r.toString());
        assertTrue(served[0] <= 8192 + 65536, "read at most a line's worth: " + served[0]);
    }

    @Test
    void linesRunAsTheyArriveNotAfterTheInputEnds() {
        // Each read hands over one line, and only once the previous line's output is out: a
        // batch that slurped its input first would hang here on the check, not pass.
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        String line = "msr decode IA32_DEBUGCTL 0x1\n";
        int lines = 50;
        int perLine = Run.of("msr", "decode", "IA32_DEBUGCTL", "0x1").bytes().length;
        List<Integer> seen = new ArrayList<>();
        System.setIn(new InputStream() {
            int given;

            @Override
            public int read() {
                throw new AssertionError("reads in blocks");
            }

            @Override
            public int read(byte[] b, int off, int len) {
                seen.add(out.size());
                if (out.size() != given * perLine) {
                    throw new AssertionError("line " + given + " has not been run before the next was read");
                }
                if (given == lines) {
                    return -1;
                }
                byte[] l = line.getBytes(StandardCharsets.UTF_8);
                System.arraycopy(l, 0, b, off, l.length);
                given++;
                return l.length;
            }
        });
        ByteOut o = new ByteOut(out);
        StringWriter err = new StringWriter();
        int code = Main.run("hwtool", new String[]{"batch"}, o, new PrintWriter(err));
        assertEquals(0, code, err.toString());
        assertEquals(lines + 1, seen.size());
        assertEquals(lines * perLine, out.size());
    }

    private Path write(String text) throws IOException {
        Path f = Files.createTempFile(dir, "batch", ".txt");
        Files.writeString(f, text, StandardCharsets.UTF_8);
        return f;
    }

    private Run batch(String text) throws IOException {
        return Run.of("batch", write(text).toString());
    }
}
