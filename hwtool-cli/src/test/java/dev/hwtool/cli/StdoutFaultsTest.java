package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Standard output is an output: a write that fails is exit 13 and one line naming the errno
 * ({@code hwtool: cannot write standard output: No space left on device}), never a success with
 * a file cut short; a pipe whose reader went away ends hwtool quietly with 141, as SIGPIPE ends
 * other programs. Each command that prints much or little (msr list --all --json, caps --json,
 * cpuid, lbr report --json on a recording made here, rdmsr -a, and a batch of them all) against
 * /dev/full, a full tmpfs and one with a single page left (a private mount namespace,
 * {@code unshare -m}, as OutputPolicyTest), standard output open for reading only (EBADF), a pipe
 * closed before the first write and a pipe closed after one line ({@code | head -1}), and a failed
 * standard error. A closed standard output is OutputDescriptorsTest's. Every process runs on a
 * copy of the runtime, hashed before and after ({@link RuntimeCopy}).
 */
class StdoutFaultsTest {

    @TempDir
    static Path shared;

    /** A simulated call-stack LBR recording, the input of lbr report --json. */
    static Path recording;
    /** The batch of all the others, then a line that writes {@link #marker}: absent if the batch stopped. */
    static Path batch;
    static Path marker;

    @TempDir
    Path dir;

    record Cmd(String name, List<String> args) {
        @Override
        public String toString() {
            return name;
        }
    }

    static List<Cmd> commands;

    /**
     * The runtime these processes run on: a copy (RuntimeCopy), checked unchanged at the end, so
     * that no run of this class can write into the JDK the build uses.
     */
    static RuntimeCopy runtime;

    @AfterAll
    static void theRuntimeIsAsItWas() throws Exception {
        if (runtime != null) {
            assertEquals(List.of(), runtime.changed(), "no file of the runtime hwtool ran on was changed, added or removed");
        }
    }

    @BeforeAll
    static void inputs() throws Exception {
        runtime = RuntimeCopy.in(shared);
        recording = shared.resolve("callstack.data");
        Run r = Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "--filter", "call-stack", "-c", "1009",
                "-o", recording.toString(), "--", "calltree", "depth=4", "calls=20000");
        assertEquals(0, r.exit(), r.toString());
        List<Cmd> cmds = new ArrayList<>(List.of(
                new Cmd("msr list --all --json", List.of("msr", "list", "--all", "--json", "--backend", "sim", "--profile", "skylake")),
                new Cmd("caps --json", List.of("caps", "--json", "--backend", "sim", "--profile", "skylake")),
                new Cmd("cpuid", List.of("cpuid", "--backend", "sim", "--profile", "skylake")),
                new Cmd("lbr report --json", List.of("lbr", "report", "--json", recording.toString())),
                new Cmd("rdmsr -a", List.of("rdmsr", "-a", "0x10", "--backend", "sim", "--profile", "skylake"))));
        marker = shared.resolve("marker.json");
        StringBuilder lines = new StringBuilder();
        for (Cmd c : cmds) {
            lines.append(HwtoolProcess.shellLine(c.args())).append('\n');
        }
        lines.append("msr save IA32_DEBUGCTL --backend sim --profile skylake -o ").append(marker).append('\n');
        batch = Files.writeString(shared.resolve("batch.txt"), lines.toString());
        cmds.add(new Cmd("batch", List.of("batch", batch.toString())));
        commands = List.copyOf(cmds);
    }

    record Outcome(int exit, String err) {
        /** stderr without the simulator's notes and the batch's own lines. */
        List<String> errLines() {
            return err.lines().filter(l -> !l.startsWith("hwtool: note: SIMULATED")).toList();
        }
    }

    private static void assertOneLine(Cmd c, Outcome o, String reason) throws IOException {
        String what = c + ": exit " + o.exit() + "\n" + o.err();
        assertEquals(Cause.OS_ERROR.exitCode(), o.exit(), what);
        assertEquals(List.of("hwtool: cannot write standard output: " + reason), o.errLines(), what);
        if (c.name().equals("batch")) {
            assertFalse(Files.exists(marker), "the batch stopped at its failed standard output");
        }
    }

    private Outcome run(Cmd c, ProcessBuilder.Redirect stdout) throws Exception {
        Files.deleteIfExists(marker);
        Path err = dir.resolve("err");
        Process p = HwtoolProcess.builder(runtime.hwtool(List.of(), c.args())).redirectOutput(stdout)
                .redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), c + " ended");
        return new Outcome(p.exitValue(), Files.readString(err));
    }

    /** Sizes of each command's whole output, from a run into a file that has room. */
    private List<Long> wholeSizes() throws Exception {
        List<Long> sizes = new ArrayList<>();
        for (Cmd c : commands) {
            Path out = dir.resolve("whole");
            Outcome o = run(c, ProcessBuilder.Redirect.to(out.toFile()));
            assertEquals(0, o.exit(), c + ": " + o.err());
            sizes.add(Files.size(out));
            Files.deleteIfExists(marker);
        }
        return sizes;
    }

    @Test
    void devFullIsNoSpaceLeftInOneLine() throws Exception {
        for (Cmd c : commands) {
            Outcome o = run(c, ProcessBuilder.Redirect.to(Path.of("/dev/full").toFile()));
            assertOneLine(c, o, "No space left on device");
        }
    }

    /** Standard output open for reading only (as {@code 1</dev/null}): every write is EBADF. */
    @Test
    void aStandardOutputOpenForReadingIsBadFileDescriptor() throws Exception {
        for (Cmd c : commands) {
            List<String> sh = new ArrayList<>(List.of("sh", "-c", "exec \"$@\" 1</dev/null", "sh"));
            sh.addAll(runtime.hwtool(List.of(), c.args()));
            Outcome o = run(new Cmd(c.name(), List.of()), sh);
            assertOneLine(c, o, "Bad file descriptor");
        }
    }

    private Outcome run(Cmd c, List<String> cmd) throws Exception {
        Files.deleteIfExists(marker);
        Path err = dir.resolve("err");
        Process p = HwtoolProcess.builder(cmd).redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), c + " ended");
        return new Outcome(p.exitValue(), Files.readString(err));
    }

    /**
     * A pipe with no reader left before hwtool writes: in sh, the FIFO opened read-write (which
     * never blocks, fifo(7)) so that the write end opens, then the reader closed. The first write
     * gets EPIPE: exit 141 and nothing said.
     */
    @Test
    void aPipeClosedBeforeTheFirstWriteIsQuiet141() throws Exception {
        Path fifo = dir.resolve("fifo");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        for (Cmd c : commands) {
            List<String> sh = new ArrayList<>(List.of("sh", "-c", "f=$1; shift; exec 3<>\"$f\" 4>\"$f\" 3<&-; exec \"$@\" >&4 4>&-",
                    "sh", fifo.toString()));
            sh.addAll(runtime.hwtool(List.of(), c.args()));
            Outcome o = run(c, sh);
            assertEquals(StdStream.BROKEN_PIPE_EXIT, o.exit(), c + ": " + o.err());
            assertEquals(List.of(), o.errLines(), c + ": quiet");
            if (c.name().equals("batch")) {
                assertFalse(Files.exists(marker), "the batch stopped at the closed pipe");
            }
        }
    }

    /**
     * {@code hwtool ... | head -1}: the reader takes a line and goes. hwtool ends with 0 when all
     * it had to say fitted in the pipe before that (64 KiB, pipe(7)), else quietly with 141; msr
     * list --all --json (more than 64 KiB) must be the latter.
     */
    @Test
    void aPipeClosedAfterOneLineIsQuiet() throws Exception {
        for (Cmd c : commands) {
            Files.deleteIfExists(marker);
            Path err = dir.resolve("err");
            Process p = HwtoolProcess.builder(runtime.hwtool(List.of(), c.args())).redirectError(err.toFile()).start();
            p.getOutputStream().close();
            String first;
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                first = r.readLine();
            }
            assertTrue(p.waitFor(300, TimeUnit.SECONDS), c + " ended");
            Outcome o = new Outcome(p.exitValue(), Files.readString(err));
            assertNotNull(first, c + ": a first line");
            assertTrue(o.exit() == 0 || o.exit() == StdStream.BROKEN_PIPE_EXIT, c + ": exit " + o.exit() + "\n" + o.err());
            assertEquals(List.of(), o.errLines(), c + ": quiet");
            if (c.name().startsWith("msr list")) {
                assertEquals(StdStream.BROKEN_PIPE_EXIT, o.exit(), c + ": more than a pipe holds");
            }
            Files.deleteIfExists(marker);
        }
    }

    /**
     * A full file system and one with a single page (4096 bytes) left, in a private mount
     * namespace: the full one fails every command; the other cuts every output longer than a page,
     * and that is a failure too, never a success with 4096 bytes; an output that fits is whole.
     */
    @Test
    void aFullFileSystemFailsAndAFileCutAtAPageIsNoSuccess() throws Exception {
        dev.hwtool.testing.Preconditions.privileged(canUnshare(), "unshare -m (a private mount namespace, as root) is not available here");
        List<Long> whole = wholeSizes();
        assertTrue(whole.getFirst() > 4096, "msr list --all --json is longer than a page: " + whole);
        assertTrue(whole.get(4) <= 4096, "rdmsr -a fits in a page: " + whole);
        Path fs = Files.createDirectory(dir.resolve("fs"));
        Path out = Files.createDirectory(dir.resolve("out"));
        StringBuilder sh = new StringBuilder("set -u\nFS=" + HwtoolProcess.shellQuote(fs.toString()) + "\nOUT="
                + HwtoolProcess.shellQuote(out.toString()) + "\n");
        // 64 KiB = 16 pages; tmpfs counts pages (mm/shmem.c, shmem_inode_acct_blocks). "full": dd
        // until ENOSPC; "page": 15 pages of filler, one left.
        for (String scene : List.of("full", "page")) {
            sh.append("mount -t tmpfs -o size=64k,mode=0755 tmpfs \"$FS\" || exit 90\n");
            sh.append(scene.equals("full") ? "dd if=/dev/zero of=\"$FS/filler\" bs=4096 2>/dev/null\n"
                    : "dd if=/dev/zero of=\"$FS/filler\" bs=4096 count=15 2>/dev/null || exit 91\n");
            for (int i = 0; i < commands.size(); i++) {
                String base = "\"$OUT/" + scene + i;
                sh.append("rm -f ").append(HwtoolProcess.shellQuote(marker.toString())).append('\n');
                sh.append(HwtoolProcess.shellLine(runtime.hwtool(List.of(), commands.get(i).args())))
                        .append(" > \"$FS/out\" 2> ").append(base).append(".err\"; echo $? > ").append(base).append(".rc\"\n");
                sh.append("wc -c < \"$FS/out\" > ").append(base).append(".size\"; rm -f \"$FS/out\"\n");
                sh.append("test -e ").append(HwtoolProcess.shellQuote(marker.toString())).append(" && echo yes > ")
                        .append(base).append(".marker\"\n");
            }
            sh.append("umount \"$FS\" || exit 92\n");
        }
        Path script = Files.writeString(dir.resolve("scene.sh"), sh.toString());
        Process p = HwtoolProcess.builder(List.of("unshare", "-m", "sh", script.toString())).redirectErrorStream(true).start();
        String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(900, TimeUnit.SECONDS), "the scene ran to its end");
        assertEquals(0, p.exitValue(), "the scene was set up: " + log);
        for (String scene : List.of("full", "page")) {
            for (int i = 0; i < commands.size(); i++) {
                Cmd c = commands.get(i);
                int rc = Integer.parseInt(Files.readString(out.resolve(scene + i + ".rc")).strip());
                long size = Long.parseLong(Files.readString(out.resolve(scene + i + ".size")).strip());
                Outcome o = new Outcome(rc, Files.readString(out.resolve(scene + i + ".err")));
                String what = scene + ": " + c + ": " + size + " of " + whole.get(i) + " bytes, exit " + rc + "\n" + o.err();
                boolean fits = scene.equals("page") && whole.get(i) <= 4096;
                if (fits) {
                    assertEquals(0, rc, what);
                    assertEquals(whole.get(i), size, what);
                } else {
                    assertEquals(Cause.OS_ERROR.exitCode(), rc, what);
                    assertEquals(List.of("hwtool: cannot write standard output: No space left on device"), o.errLines(), what);
                    assertEquals(scene.equals("full") ? 0 : 4096, size, what);
                    assertFalse(Files.exists(out.resolve(scene + i + ".marker")), what + ": the batch stopped");
                }
            }
        }
    }

    /**
     * Standard error that cannot be written: a command that succeeds (its note to stderr lost)
     * ends with 13, there being nowhere to say why; one that fails keeps its own code.
     */
    @Test
    void aFailedStandardErrorTurnsSuccessInto13AndKeepsAFailuresCode() throws Exception {
        Process ok = HwtoolProcess.builder(runtime.hwtool(List.of(), List.of("cpuid", "--backend", "sim", "--profile", "skylake", "-1",
                "-l", "0"))).redirectOutput(dir.resolve("out").toFile()).redirectError(Path.of("/dev/full").toFile()).start();
        ok.getOutputStream().close();
        assertTrue(ok.waitFor(300, TimeUnit.SECONDS));
        assertEquals(Cause.OS_ERROR.exitCode(), ok.exitValue(), "the SIMULATED note could not be written");
        assertFalse(Files.readString(dir.resolve("out")).isEmpty(), "stdout was written");

        Process usage = HwtoolProcess.builder(runtime.hwtool(List.of(), List.of("cpuid", "--no-such-option")))
                .redirectOutput(dir.resolve("out").toFile()).redirectError(Path.of("/dev/full").toFile()).start();
        usage.getOutputStream().close();
        assertTrue(usage.waitFor(300, TimeUnit.SECONDS));
        assertEquals(2, usage.exitValue(), "a usage error is still 2");
    }

    private static boolean canUnshare() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("unshare", "-m", "true").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        return p.waitFor() == 0;
    }
}
