package dev.hwtool.cli;

import dev.hwtool.msr.MsrSaveFile;
import dev.hwtool.api.Cause;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every command that writes a file, against every kind of target the output policy
 * ({@link dev.hwtool.io.OutputFile}) tells apart: /dev/null stays a device, /dev/full fails with
 * ENOSPC in words, /dev/stdout reaches stdout, a FIFO gets the whole file, a symbolic link stays a
 * link, a directory, a missing directory, a full or read-only file system and a directory without
 * write permission fail with exit 13 before any work, and nothing leaves a temporary file.
 * Full and read-only file systems are small tmpfs mounts in a private mount namespace
 * ({@code unshare -m}, as root); permission is tested without CAP_DAC_OVERRIDE ({@code setpriv}).
 */
class OutputPolicyTest {

    @TempDir
    static Path shared;

    /** A simulated call-stack LBR recording, the input of lbr report --folded. */
    static Path callStackRecording;
    /** A simulated BTS recording of a call tree, the input of bts report --folded (decoded from its program image). */
    static Path btsRecording;

    @TempDir
    Path dir;

    /**
     * One command writing one file: its arguments for a target, its exit code when all goes well,
     * and a check that what it wrote is whole.
     */
    record Writer(String name, Function<String, List<String>> args, int success, Check whole) {
        List<String> argsFor(Path target) {
            return args.apply(target.toString());
        }

        @Override
        public String toString() {
            return name;
        }
    }

    @FunctionalInterface
    interface Check {
        void whole(byte[] content, Path scratch) throws Exception;
    }

    static final Writer MSR_SAVE = new Writer("msr save",
            t -> List.of("msr", "save", "IA32_DEBUGCTL", "--profile", "skylake", "-o", t), 0,
            (b, scratch) -> assertEquals(1, MsrSaveFile.parse(new String(b, StandardCharsets.UTF_8)).registers().size()));
    static final Writer LBR_RECORD = new Writer("lbr record",
            t -> List.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "-c", "1009", "-o", t, "--", "calltree",
                    "depth=4", "calls=20000"), 0, (b, scratch) -> readable("lbr", b, scratch));
    static final Writer BTS_RECORD = new Writer("bts record",
            t -> List.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", t, "--", "loop",
                    "iterations=2000"), 0, (b, scratch) -> readable("bts", b, scratch));
    static final Writer STAT = new Writer("stat -o",
            t -> List.of("stat", "--backend", "sim", "--profile", "skylake", "-o", t, "--", "loop", "iterations=1000"), 0,
            (b, scratch) -> assertTrue(new String(b, StandardCharsets.UTF_8).contains(
                    "Performance counter stats for 'loop iterations=1000'"), new String(b, StandardCharsets.UTF_8)));
    static final Writer LBR_FOLDED = new Writer("lbr report --folded",
            t -> List.of("lbr", "report", "--folded", t, callStackRecording.toString()), 0,
            (b, scratch) -> {
                List<String> lines = new String(b, StandardCharsets.UTF_8).lines().toList();
                assertFalse(lines.isEmpty());
                assertTrue(lines.stream().allMatch(l -> l.matches(".+ [0-9]+")), lines.toString());
            });
    static final Writer LBR_FLAMEGRAPH = new Writer("lbr report --flamegraph",
            t -> List.of("lbr", "report", "--flamegraph", t, callStackRecording.toString()), 0,
            (b, scratch) -> {
                String page = new String(b, StandardCharsets.UTF_8);
                assertTrue(page.startsWith("<!DOCTYPE html>") && page.contains("SIMULATED"), page.substring(0,
                        Math.min(200, page.length())));
                assertTrue(page.stripTrailing().endsWith("</html>"), "the whole page");
            });
    static final Writer BTS_FOLDED = new Writer("bts report --folded",
            t -> List.of("bts", "report", "--folded", t, btsRecording.toString()), 0,
            (b, scratch) -> {
                List<String> lines = new String(b, StandardCharsets.UTF_8).lines().toList();
                assertTrue(lines.stream().allMatch(l -> l.matches("main(;f[0-9]+_[0-3])* [0-9]+")), lines.toString());
                assertTrue(lines.size() > 3, lines.toString());
            });
    static final Writer SIM_IMAGE = new Writer("sim image",
            t -> List.of("sim", "image", "-o", t, "--", "calltree", "depth=4"), 0,
            (b, scratch) -> {
                try (dev.hwtool.elf.ElfFile elf = dev.hwtool.elf.ElfFile.of("image", b)) {
                    assertEquals("main", elf.symbolAt(0x401000).orElseThrow().name());
                }
            });

    /** The writers that succeed on the simulator. */
    static final List<Writer> WRITERS = List.of(MSR_SAVE, LBR_RECORD, BTS_RECORD, STAT, LBR_FOLDED, LBR_FLAMEGRAPH,
            BTS_FOLDED, SIM_IMAGE);
    /** Every writer, for the refusals that come before any work. */
    static final List<Writer> ALL = WRITERS;

    @BeforeAll
    static void recordings() {
        callStackRecording = shared.resolve("callstack.data");
        Run r = Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "--filter", "call-stack", "-c", "1009",
                "-o", callStackRecording.toString(), "--", "calltree", "depth=4", "calls=20000");
        assertEquals(0, r.exit(), r.toString());
        btsRecording = shared.resolve("bts.data");
        Run b = Run.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", btsRecording.toString(), "--",
                "calltree", "depth=3", "calls=200");
        assertEquals(0, b.exit(), b.toString());
    }

    static void readable(String kind, byte[] content, Path scratch) throws IOException {
        Path f = Files.write(scratch.resolve("check-" + kind + ".data"), content);
        Run r = Run.of(kind, "report", f.toString());
        assertEquals(0, r.exit(), "the file written is whole: " + r);
    }

    private static Run run(Writer w, Path target) {
        return Run.of(w.argsFor(target).toArray(String[]::new));
    }

    private static List<String> names(Path d) throws IOException {
        try (Stream<Path> s = Files.list(d)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    /** Temporary files of the policy ({@code .NAME.XXXXXXXXXXXXXXXX.tmp}) or a NAME.old for {@code name} in {@code d}. */
    private static List<String> debris(Path d, String name) throws IOException {
        return names(d).stream().filter(n -> n.startsWith("." + name + ".") && n.endsWith(".tmp")
                || n.equals(name + ".old")).toList();
    }

    private static int type(Path p) throws IOException {
        return (Integer) Files.readAttributes(p, "unix:mode").get("mode") & 0170000;
    }

    /** Only "cannot write" and its fix: nothing else was done (no SIMULATED note, no summary). */
    private static void refusedBeforeAnyWork(Writer w, Run r) {
        assertEquals(Cause.OS_ERROR.exitCode(), r.exit(), w + ": " + r);
        assertTrue(r.err().startsWith("hwtool: cannot write "), w + ": " + r);
        assertTrue(r.err().lines().allMatch(l -> l.startsWith("hwtool: cannot write ") || l.startsWith("hwtool: fix: ")),
                w + ": one line and its fix, before any work: " + r);
        assertEquals("", r.out(), w + ": " + r);
    }

    // ---- special files -------------------------------------------------------------------------

    @Test
    void devNullStaysACharacterDeviceForEveryWriter() throws Exception {
        Path dev = Path.of("/dev/null");
        Object rdev = Files.getAttribute(dev, "unix:rdev");
        for (Writer w : ALL) {
            Run r = run(w, dev);
            assertEquals(w.success(), r.exit(), w + ": " + r);
            assertEquals(0020000, type(dev), w + ": /dev/null is still a character device");
            assertEquals(rdev, Files.getAttribute(dev, "unix:rdev"), w.toString());
            assertEquals(List.of(), debris(Path.of("/dev"), "null"), w + ": nothing beside it");
        }
    }

    @Test
    void devFullFailsWithNoSpaceLeftInWordsForEveryWriter() throws Exception {
        for (Writer w : WRITERS) {
            Run r = run(w, Path.of("/dev/full"));
            assertEquals(Cause.OS_ERROR.exitCode(), r.exit(), w + ": " + r);
            assertTrue(r.err().contains("hwtool: cannot write /dev/full: No space left on device\n"), w + ": " + r);
            assertFalse(r.err().contains("\tat "), r.toString());
            assertFalse(r.err().contains("written to"), w + ": no summary of a recording that was not written: " + r);
            assertEquals(0020000, type(Path.of("/dev/full")), w.toString());
            assertEquals(List.of(), debris(Path.of("/dev"), "full"), w.toString());
        }
    }

    @Test
    void aFifoGetsTheWholeOutputForEveryWriter() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Writer w : WRITERS) {
            CompletableFuture<byte[]> reader = CompletableFuture.supplyAsync(() -> {
                try {
                    return Files.readAllBytes(fifo);
                } catch (IOException e) {
                    throw new RuntimeException(e);
                }
            });
            Run r = run(w, fifo);
            assertEquals(0, r.exit(), w + ": " + r);
            w.whole().whole(reader.get(120, TimeUnit.SECONDS), dir);
            assertEquals(0010000, type(fifo), w + ": still a FIFO");
            assertEquals(List.of(), debris(dir, "fifo"), w.toString());
        }
    }

    @Test
    void devStdoutReachesStdoutWhetherAPipeOrAFile() throws Exception {
        for (Writer w : List.of(MSR_SAVE, LBR_RECORD, STAT)) {
            // stdout a pipe
            Process p = HwtoolProcess.builder(HwtoolProcess.command(List.of(), w.argsFor(Path.of("/dev/stdout"))))
                    .redirectError(dir.resolve("err").toFile()).start();
            p.getOutputStream().close();
            byte[] out = p.getInputStream().readAllBytes();
            assertTrue(p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), w + ": " + Files.readString(dir.resolve("err")));
            w.whole().whole(out, dir);
            // stdout a regular file, as the shell's > makes it
            Path file = dir.resolve("stdout.file");
            Files.deleteIfExists(file);
            Process f = HwtoolProcess.builder(HwtoolProcess.command(List.of(), w.argsFor(Path.of("/dev/stdout"))))
                    .redirectError(dir.resolve("err").toFile()).redirectOutput(file.toFile()).start();
            assertTrue(f.waitFor(120, TimeUnit.SECONDS));
            assertEquals(0, f.exitValue(), w + ": " + Files.readString(dir.resolve("err")));
            w.whole().whole(Files.readAllBytes(file), dir);
            assertTrue(Files.isSymbolicLink(Path.of("/dev/stdout")), "/dev/stdout is still the link it was");
        }
    }

    // ---- regular files and links -------------------------------------------------------------------

    @Test
    void aSymlinkStaysALinkAndTheFileItNamesKeepsItsModeForEveryWriter() throws Exception {
        for (Writer w : WRITERS) {
            Path sub = Files.createDirectory(dir.resolve(w.name().replace(' ', '_')));
            Path real = Files.writeString(sub.resolve("real"), "previous");
            Files.setPosixFilePermissions(real, PosixFilePermissions.fromString("rw-r-----"));
            Path link = Files.createSymbolicLink(sub.resolve("link"), Path.of("real"));
            Run r = run(w, link);
            assertEquals(0, r.exit(), w + ": " + r);
            assertTrue(Files.isSymbolicLink(link), w + ": the link stays a link");
            assertEquals(Path.of("real"), Files.readSymbolicLink(link));
            w.whole().whole(Files.readAllBytes(real), sub);
            assertEquals("rw-r-----", PosixFilePermissions.toString(Files.getPosixFilePermissions(real)), w.toString());
            List<String> expected = new ArrayList<>(List.of("link", "real"));
            if (w == LBR_RECORD || w == BTS_RECORD) {
                expected.add("real.old"); // perf's convention, beside the file replaced
                assertEquals("previous", Files.readString(sub.resolve("real.old")));
            }
            assertEquals(expected, names(sub).stream().filter(n -> !n.startsWith("check-")).toList(), w.toString());
        }
    }

    @Test
    void aNewFileGetsTheModeOfTheShellsRedirectionForEveryWriter() throws Exception {
        Path ref = Files.createFile(dir.resolve("ref"), PosixFilePermissions.asFileAttribute(
                dev.hwtool.io.OutputFile.NEW_FILE_MODE));
        for (Writer w : WRITERS) {
            Path f = dir.resolve("new-" + w.name().replace(' ', '_'));
            Run r = run(w, f);
            assertEquals(0, r.exit(), w + ": " + r);
            assertEquals(Files.getPosixFilePermissions(ref), Files.getPosixFilePermissions(f), w + ": 0666 minus the umask");
            w.whole().whole(Files.readAllBytes(f), dir);
        }
    }

    // ---- refusals before any work ------------------------------------------------------------------

    @Test
    void aDirectoryIsRefusedBeforeAnyWork() throws Exception {
        Path d = Files.createDirectory(dir.resolve("d"));
        for (Writer w : ALL) {
            Run r = run(w, d);
            refusedBeforeAnyWork(w, r);
            assertTrue(r.err().startsWith("hwtool: cannot write " + d + ": Is a directory\n"), w + ": " + r);
            assertEquals(List.of(), names(d), w.toString());
        }
    }

    @Test
    void aMissingDirectoryIsRefusedBeforeAnyWorkAndNeverCreated() throws Exception {
        Path f = dir.resolve("missing/sub/out");
        for (Writer w : ALL) {
            Run r = run(w, f);
            refusedBeforeAnyWork(w, r);
            assertTrue(r.err().startsWith("hwtool: cannot write " + f + ": directory " + dir.resolve("missing/sub")
                    + " does not exist (No such file or directory)\n"), w + ": " + r);
            assertFalse(Files.exists(dir.resolve("missing")), w + ": never created");
        }
    }

    // ---- full and read-only file systems, permission ------------------------------------------------

    /** What one hwtool run inside a script did. */
    record Outcome(int exit, String err) {
    }

    /** What a script of hwtool runs against a file system prepared in a private mount namespace left. */
    record Scene(List<Outcome> outcomes, List<String> listing, Path out) {
        String previous(int i) throws IOException {
            return Files.readString(out.resolve("t" + i));
        }

        String mode(int i) throws IOException {
            return Files.readString(out.resolve("t" + i + ".mode")).strip();
        }
    }

    /**
     * In a private mount namespace: a tmpfs of {@code size} at FS, a previous file t0..tN (mode 640)
     * per writer, then {@code prepare} (fill it, remount it read-only), then each writer's run with
     * FS/tI as target, each under {@code prefix} (e.g. setpriv); what is left is copied out.
     */
    private Scene scene(String size, String prepare, List<Writer> writers, List<String> prefix)
            throws IOException, InterruptedException {
        dev.hwtool.testing.Preconditions.privileged(canUnshare(), "unshare -m (a private mount namespace, as root) is not available here");
        Path fs = Files.createDirectory(dir.resolve("fs"));
        Path out = Files.createDirectory(dir.resolve("out"));
        StringBuilder sh = new StringBuilder("set -u\nFS=" + HwtoolProcess.shellQuote(fs.toString()) + "\nOUT="
                + HwtoolProcess.shellQuote(out.toString()) + "\n");
        sh.append("mount -t tmpfs -o size=").append(size).append(",mode=0755 tmpfs \"$FS\" || exit 90\n");
        for (int i = 0; i < writers.size(); i++) {
            sh.append("printf 'previous %d\\n' ").append(i).append(" > \"$FS/t").append(i).append("\"; chmod 640 \"$FS/t")
                    .append(i).append("\"\n");
        }
        sh.append(prepare).append('\n');
        for (int i = 0; i < writers.size(); i++) {
            List<String> cmd = new ArrayList<>(prefix);
            cmd.addAll(HwtoolProcess.command(List.of(), writers.get(i).argsFor(fs.resolve("t" + i))));
            sh.append(HwtoolProcess.shellLine(cmd)).append(" > /dev/null 2> \"$OUT/").append(i).append(".err\"; echo $? > \"$OUT/")
                    .append(i).append(".rc\"\n");
        }
        sh.append("ls -A \"$FS\" > \"$OUT/listing\"\n");
        for (int i = 0; i < writers.size(); i++) {
            sh.append("cat \"$FS/t").append(i).append("\" > \"$OUT/t").append(i).append("\"; stat -c %a \"$FS/t").append(i)
                    .append("\" > \"$OUT/t").append(i).append(".mode\"\n");
        }
        Path script = Files.writeString(dir.resolve("scene.sh"), sh.toString());
        Process p = HwtoolProcess.builder(List.of("unshare", "-m", "sh", script.toString())).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "the scene ran to its end");
        assertEquals(0, p.exitValue(), "the scene was set up: " + log);
        List<Outcome> outcomes = new ArrayList<>();
        for (int i = 0; i < writers.size(); i++) {
            outcomes.add(new Outcome(Integer.parseInt(Files.readString(out.resolve(i + ".rc")).strip()),
                    Files.readString(out.resolve(i + ".err"))));
        }
        return new Scene(outcomes, Files.readAllLines(out.resolve("listing")), out);
    }

    private static boolean canUnshare() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("unshare", "-m", "true").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor() == 0;
    }

    private static List<String> previousFiles(int n) {
        List<String> names = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            names.add("t" + i);
        }
        return names;
    }

    @Test
    void aFullFileSystemLeavesEveryPreviousFileAsItWasAndNoTemporaryFile() throws Exception {
        Scene s = scene("1m", "dd if=/dev/zero of=\"$FS/filler\" bs=4096 2>/dev/null; true", WRITERS, List.of());
        for (int i = 0; i < WRITERS.size(); i++) {
            Outcome o = s.outcomes().get(i);
            String what = WRITERS.get(i) + ": " + o;
            assertEquals(Cause.OS_ERROR.exitCode(), o.exit(), what);
            assertTrue(o.err().contains("hwtool: cannot write " + dir.resolve("fs/t" + i) + ": No space left on device\n"), what);
            assertEquals("previous " + i + "\n", s.previous(i), what);
            assertEquals("640", s.mode(i), what);
        }
        List<String> expected = new ArrayList<>(previousFiles(WRITERS.size()));
        expected.add("filler");
        assertEquals(expected.stream().sorted().toList(), s.listing().stream().sorted().toList(), "no temporary file left");
    }

    @Test
    void aFileSystemThatFillsDuringARecordingLeavesThePreviousFileAndNoTemporaryFile() throws Exception {
        // About 20 MiB of BTS records into a 2 MiB file system: ENOSPC in the middle of the recording.
        Writer big = new Writer("bts record (20 MiB)", t -> List.of("bts", "record", "--backend", "sim", "--profile",
                "skylake", "-o", t, "--", "calltree", "depth=8", "calls=200000"), 0, (b, x) -> { });
        Scene s = scene("2m", "true", List.of(big, MSR_SAVE), List.of());
        Outcome o = s.outcomes().getFirst();
        assertEquals(Cause.OS_ERROR.exitCode(), o.exit(), o.toString());
        assertTrue(o.err().startsWith("hwtool: cannot write " + dir.resolve("fs/t0") + ": No space left on device\n"), o.toString());
        assertEquals("previous 0\n", s.previous(0));
        assertEquals(0, s.outcomes().get(1).exit(), "the space was given back: " + s.outcomes().get(1));
        assertEquals(List.of("t0", "t1"), s.listing().stream().sorted().toList(), "no temporary file left");
    }

    @Test
    void aReadOnlyFileSystemIsRefusedBeforeAnyWork() throws Exception {
        Scene s = scene("1m", "mount -o remount,ro \"$FS\" || exit 91", ALL, List.of());
        for (int i = 0; i < ALL.size(); i++) {
            Outcome o = s.outcomes().get(i);
            String what = ALL.get(i) + ": " + o;
            assertEquals(Cause.OS_ERROR.exitCode(), o.exit(), what);
            assertTrue(o.err().startsWith("hwtool: cannot write " + dir.resolve("fs/t" + i) + ": cannot create a file in "
                    + dir.resolve("fs") + ": Read-only file system\n"), what);
            assertTrue(o.err().lines().allMatch(l -> l.startsWith("hwtool: cannot write") || l.startsWith("hwtool: fix: ")),
                    "before any work: " + what);
            assertEquals("previous " + i + "\n", s.previous(i), what);
        }
        assertEquals(previousFiles(ALL.size()), s.listing().stream().sorted().toList());
    }

    @Test
    void aDirectoryWithoutWritePermissionIsRefusedBeforeAnyWork() throws Exception {
        // Root passes every permission check with CAP_DAC_OVERRIDE; without it, the mode applies.
        Scene s = scene("1m", "chmod 555 \"$FS\"", ALL, List.of("setpriv", "--bounding-set",
                "-dac_override,-dac_read_search"));
        for (int i = 0; i < ALL.size(); i++) {
            Outcome o = s.outcomes().get(i);
            String what = ALL.get(i) + ": " + o;
            assertEquals(Cause.OS_ERROR.exitCode(), o.exit(), what);
            assertTrue(o.err().startsWith("hwtool: cannot write " + dir.resolve("fs/t" + i) + ": cannot create a file in "
                    + dir.resolve("fs") + ": Permission denied\n"), what);
            assertEquals("previous " + i + "\n", s.previous(i), what);
            assertEquals("640", s.mode(i), what);
        }
        assertEquals(previousFiles(ALL.size()), s.listing().stream().sorted().toList());
    }
}
