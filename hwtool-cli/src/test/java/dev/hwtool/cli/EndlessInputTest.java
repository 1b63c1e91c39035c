package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.elf.ElfFile;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every reader of a user's file, through the CLI, given input without end: {@code /dev/zero},
 * {@code /dev/urandom}, a FIFO that a writer thread feeds forever, a 1 GiB sparse file, and
 * {@code yes}-like standard input. Each must end with one line on stderr and exit 3 (bad input),
 * with nothing on stdout and no output file.
 *
 * <p>What bounds a test is the input, not time: the sources this test feeds (the FIFO writer,
 * standard input) stop after {@link #SIZE_GUARD} bytes, far past the 16 MiB a text reader takes,
 * so a reader without a limit ends with a wrong answer instead of hanging, and the test asserts
 * the guard was never reached. /dev/zero and /dev/urandom cannot be capped; for them alone the
 * timeout remains, as a hang guard generous enough for a loaded machine, never a timing assertion.
 */
class EndlessInputTest {

    private static final Duration HANG_GUARD = Duration.ofMinutes(10);
    /** Bytes a fed source gives before it stops: 16 times the 16 MiB text limit. */
    private static final long SIZE_GUARD = 256L << 20;

    @TempDir
    static Path dir;

    private final List<Thread> writers = new ArrayList<>();
    private final List<Path> fifos = new ArrayList<>();
    private final List<java.util.concurrent.atomic.AtomicLong> written = new ArrayList<>();

    /** An endless input, made in {@code dir} under a name ending in {@code suffix}. */
    enum Source {
        DEV_ZERO, DEV_URANDOM, ENDLESS_FIFO, SPARSE_1GIB
    }

    /** A reader: how the CLI is asked to read FILE. */
    enum Reader {
        CAPS_CPUID_DUMP(".txt", f -> List.of("caps", "--cpuid-dump", f)),
        PROFILE_FILE(".txt", f -> List.of("cpuid", "--backend", "sim", "--profile", f)),
        MSR_RESTORE(".json", f -> List.of("msr", "restore", "--backend", "sim", "--profile", "skylake", f)),
        SIM_RUN(".hwsim", f -> List.of("sim", "run", f)),
        RECORD_SCENARIO(".hwsim", f -> List.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "-o",
                dir.resolve("out.data").toString(), "--", f)),
        RECORD_TRACE(".trace", f -> List.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o",
                dir.resolve("out.data").toString(), "--", "trace", f)),
        SIM_RUN_TRACE(".hwsim", null),
        LBR_REPORT(".data", f -> List.of("lbr", "report", f)),
        BTS_REPORT(".data", f -> List.of("bts", "report", "--trace", f));

        final String suffix;
        final Function<String, List<String>> args;

        Reader(String suffix, Function<String, List<String>> args) {
            this.suffix = suffix;
            this.args = args;
        }
    }

    static Stream<Arguments> cases() {
        List<Arguments> out = new ArrayList<>();
        for (Reader r : Reader.values()) {
            for (Source s : Source.values()) {
                out.add(Arguments.of(r, s));
            }
        }
        return out.stream();
    }

    @AfterEach
    void stopWriters() throws IOException, InterruptedException {
        for (int i = 0; i < writers.size(); i++) {
            Thread w = writers.get(i);
            if (w.isAlive()) {
                // A reader that refused the FIFO without opening it leaves the writer blocked in
                // open(2): open the FIFO once as a reader, so the writer's open returns, its next
                // write gets EPIPE and it ends. Read-write, because that open never blocks (Linux
                // fifo(7)): the writer may have ended since isAlive(), after the reader closed its
                // end, and a read-only open would then wait for a writer that never comes.
                new RandomAccessFile(fifos.get(i).toFile(), "rw").close();
            }
            w.join(HANG_GUARD.toMillis());
            assertFalse(w.isAlive(), "FIFO writer stopped");
            assertTrue(written.get(i).get() < SIZE_GUARD, "the reader stopped before the FIFO's size guard: "
                    + written.get(i).get() + " bytes written");
        }
        Files.deleteIfExists(dir.resolve("out.data"));
    }

    private Path make(Source s, String suffix, String name) throws IOException, InterruptedException {
        Path p = dir.resolve(name + suffix);
        Files.deleteIfExists(p);
        switch (s) {
            case DEV_ZERO -> Files.createSymbolicLink(p, Path.of("/dev/zero"));
            case DEV_URANDOM -> Files.createSymbolicLink(p, Path.of("/dev/urandom"));
            case SPARSE_1GIB -> {
                try (RandomAccessFile raf = new RandomAccessFile(p.toFile(), "rw")) {
                    raf.setLength(1L << 30);
                }
            }
            case ENDLESS_FIFO -> {
                Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
                assertEquals(0, mk.waitFor(), "mkfifo");
                java.util.concurrent.atomic.AtomicLong count = new java.util.concurrent.atomic.AtomicLong();
                Thread w = new Thread(() -> {
                    byte[] chunk = "y\n".repeat(4096).getBytes(StandardCharsets.US_ASCII);
                    try (OutputStream out = new FileOutputStream(p.toFile())) {
                        while (count.get() < SIZE_GUARD) {
                            out.write(chunk);
                            count.addAndGet(chunk.length);
                        }
                    } catch (IOException e) {
                        // EPIPE: the reader closed its end, as it should
                    }
                }, "fifo-writer");
                w.setDaemon(true);
                w.start();
                writers.add(w);
                fifos.add(p);
                written.add(count);
            }
        }
        return p;
    }

    private static void assertOneLineBadInput(Run r) {
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertEquals("", r.out(), "nothing on stdout");
        List<String> lines = r.err().lines().toList();
        assertTrue(lines.size() == 1 || lines.size() == 2 && lines.get(1).startsWith("hwtool: fix: "), r.toString());
        assertTrue(lines.getFirst().startsWith("hwtool: "), r.toString());
        assertFalse(r.err().contains("Exception") || r.err().contains("\tat "), r.toString());
        assertFalse(r.err().contains("internal error"), r.toString());
        assertFalse(r.err().chars().anyMatch(c -> c < 0x20 && c != '\n'), "no control bytes: " + r);
    }

    @ParameterizedTest(name = "{0} on {1}")
    @MethodSource("cases")
    void endsAtOnceWithOneLine(Reader reader, Source source) throws Exception {
        Path f = make(source, reader.suffix, reader.name().toLowerCase() + "-" + source.name().toLowerCase());
        List<String> args;
        if (reader == Reader.SIM_RUN_TRACE) {
            // A scenario whose workload is the endless trace: the trace is streamed, so it is bounded per line.
            Path trace = make(source, ".trace", "scenario-" + source.name().toLowerCase());
            Path script = Files.writeString(dir.resolve("with-trace-" + source.name().toLowerCase() + ".hwsim"),
                    "cpus 1\nworkload trace " + trace + "\n");
            args = List.of("sim", "run", script.toString());
        } else {
            args = reader.args.apply(f.toString());
        }
        Run r = assertTimeoutPreemptively(HANG_GUARD, () -> Run.of(args.toArray(String[]::new)), "no hang");
        assertOneLineBadInput(r);
        assertFalse(Files.exists(dir.resolve("out.data")), "no output file: " + r);
    }

    /** Expected reasons, where they are fixed: the text readers on NULs, a line without end, a stream without end. */
    @Test
    void theReasonsSayWhatIsWrong() throws Exception {
        Path zero = make(Source.DEV_ZERO, ".txt", "reason-zero");
        assertEquals("hwtool: " + zero + ":1: not text (byte 0x00)\n",
                assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("caps", "--cpuid-dump", zero.toString())).err());
        Path sparse = make(Source.SPARSE_1GIB, ".hwsim", "reason-sparse");
        assertEquals("hwtool: " + sparse + ": larger than 16 MiB, the limit for a text file hwtool reads whole\n",
                assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("sim", "run", sparse.toString())).err());
        Path fifo = make(Source.ENDLESS_FIFO, ".data", "reason-fifo");
        assertEquals("hwtool: " + fifo + ": cannot read: not a regular file (a pipe, socket or device cannot be mapped)\n",
                assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("lbr", "report", fifo.toString())).err());
        Path yes = make(Source.ENDLESS_FIFO, ".json", "reason-yes");
        assertEquals("hwtool: " + yes + ": larger than 16 MiB, the limit for a text file hwtool reads whole\n",
                assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("msr", "restore", yes.toString())).err());
    }

    /** {@code unit} repeated, endless to a reader that stops in time; past {@link #SIZE_GUARD} bytes it fails the read. */
    private static Endless endless(String unit) {
        return new Endless(unit.getBytes(StandardCharsets.US_ASCII));
    }

    private static final class Endless extends InputStream {
        private final byte[] u;
        private long i;

        Endless(byte[] unit) {
            this.u = unit;
        }

        /** Asserts the reader stopped before the guard. */
        void assertStoppedInTime() {
            assertTrue(i < SIZE_GUARD, "the reader stopped before the size guard: " + i + " bytes read");
        }

        @Override
        public int read() throws IOException {
            guard();
            return u[(int) (i++ % u.length)] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            guard();
            for (int k = 0; k < len; k++) {
                b[off + k] = u[(int) (i++ % u.length)];
            }
            return len;
        }

        private void guard() throws IOException {
            if (i >= SIZE_GUARD) {
                throw new IOException("the test's size guard: " + i + " bytes of endless input read");
            }
        }
    }

    /** {@code yes | hwtool sim run -} and NULs on standard input. */
    @Test
    void endlessStandardInputForAScript() {
        InputStream saved = SimRunCommand.stdin;
        try {
            Endless y = endless("y\n");
            SimRunCommand.stdin = y;
            Run yes = assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("sim", "run", "-"));
            y.assertStoppedInTime();
            assertOneLineBadInput(yes);
            assertEquals("hwtool: <stdin>: larger than 16 MiB, the limit for a text file hwtool reads whole\n", yes.err());
            Endless nuls = endless("\0");
            SimRunCommand.stdin = nuls;
            Run zeros = assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("sim", "run", "-"));
            nuls.assertStoppedInTime();
            assertOneLineBadInput(zeros);
            assertEquals("hwtool: <stdin>:1: not text (byte 0x00)\n", zeros.err());
        } finally {
            SimRunCommand.stdin = saved;
        }
    }

    /** {@code yes | hwtool bts record ... -- trace -}: the streamed trace on standard input. */
    @Test
    void endlessStandardInputForATrace() {
        InputStream saved = System.in;
        try {
            for (String unit : new String[] {"y\n", "\0", "y"}) {
                Endless in = endless(unit);
                System.setIn(in);
                Run r = assertTimeoutPreemptively(HANG_GUARD, () -> Run.of("bts", "record", "--backend", "sim",
                        "--profile", "skylake", "-o", dir.resolve("out.data").toString(), "--", "trace", "-"));
                in.assertStoppedInTime();
                assertOneLineBadInput(r);
                assertFalse(Files.exists(dir.resolve("out.data")), "no output file: " + r);
            }
        } finally {
            System.setIn(saved);
        }
    }

    /** The symbolizer's ELF reader, given what a recording's MMAP records might name. */
    @ParameterizedTest(name = "ELF reader on {0}")
    @org.junit.jupiter.params.provider.EnumSource(Source.class)
    void theElfReaderEndsAtOnce(Source source) throws Exception {
        Path f = make(source, ".so", "elf-" + source.name().toLowerCase());
        HwException e = assertTimeoutPreemptively(HANG_GUARD, () -> assertThrows(HwException.class, () -> {
            try (ElfFile elf = ElfFile.open(f)) {
                elf.symbols();
            }
        }));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertEquals(1, e.getMessage().lines().count(), e.getMessage());
    }
}
