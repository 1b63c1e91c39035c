package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool never writes into a file it was not given through a descriptor of its own process:
 * {@code /dev/stdout}, {@code /dev/fd/N}, {@code /proc/self/fd/N}, {@code /proc/PID/fd/N} and links
 * to them are written through only for a descriptor the caller passed (Descriptors, OutputFile),
 * and standard output itself is refused when it is a file the runtime opened because 1 was closed
 * at start. The first found bug: {@code msr save -o /dev/stdout >&-} rewrote the JDK's lib/modules.
 *
 * <p>Every run here is on a copy of the runtime ({@code cp -a} of java.home), never on the JDK
 * the build uses: before the fix, these command lines wrote into the runtime they ran on. The
 * copy is hashed, file by file, before and after, and must not have changed.
 */
class OutputDescriptorsTest {

    @TempDir
    static Path shared;

    /** The copy of the runtime every process of this class runs on. */
    static RuntimeCopy runtime;

    @TempDir
    Path dir;

    @BeforeAll
    static void copyTheRuntime() throws Exception {
        runtime = RuntimeCopy.in(shared);
    }

    @AfterAll
    static void theRuntimeIsAsItWas() throws Exception {
        if (runtime != null) {
            assertEquals(List.of(), runtime.changed(), "no file of the runtime hwtool ran on was changed, added or removed");
        }
    }

    /** hwtool on the copy of the runtime: {@code java [jvmOptions] -cp ... Main args}. */
    private static List<String> hwtool(List<String> jvmOptions, String... args) {
        return runtime.hwtool(jvmOptions, List.of(args));
    }

    private static final String[] SIM = {"--backend", "sim", "--profile", "skylake"};

    private static String[] sim(String... args) {
        String[] all = new String[args.length + SIM.length];
        System.arraycopy(args, 0, all, 0, args.length);
        System.arraycopy(SIM, 0, all, args.length, SIM.length);
        return all;
    }

    record Outcome(int exit, String out, String err) {
        /** stderr without the simulator's note. */
        List<String> errLines() {
            return err.lines().filter(l -> !l.startsWith("hwtool: note: SIMULATED")).toList();
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** {@code sh -c 'exec "$@" REDIRECTIONS'}: hwtool with descriptors closed or given by a shell. */
    private Outcome viaShell(String redirections, List<String> cmd) throws Exception {
        List<String> sh = new ArrayList<>(List.of("sh", "-c", "exec \"$@\" " + redirections, "sh"));
        sh.addAll(cmd);
        Path out = dir.resolve("stdout");
        Path err = dir.resolve("stderr");
        Process p = HwtoolProcess.builder(sh).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), "hwtool ended");
        return new Outcome(p.exitValue(), Files.readString(out), Files.readString(err));
    }

    /** The commands whose output goes to standard output (StdoutFaultsTest's), and msr save through /dev/stdout. */
    private static List<String[]> stdoutCommands() {
        return List.of(sim("msr", "list", "--all", "--json"), sim("caps", "--json"), sim("cpuid"),
                sim("rdmsr", "-a", "0x10"), sim("msr", "save", "IA32_DEBUGCTL", "-o", "/dev/stdout"),
                sim("msr", "save", "IA32_DEBUGCTL", "-o", "/dev/fd/1"),
                sim("msr", "save", "IA32_DEBUGCTL", "-o", "/proc/self/fd/1"));
    }

    /**
     * The reproduction, and standard output closed for every command that writes there: without
     * the launchers (which would open /dev/null on it), the runtime's lib/modules is descriptor 1;
     * hwtool refuses it in one line, exit 13, with or without a launcher's list of descriptors.
     */
    @Test
    void aClosedStandardOutputIsRefusedAndTheRuntimeIsNotWritten() throws Exception {
        String modules = runtime.home().resolve("lib/modules").toRealPath().toString();
        for (List<String> jvm : List.of(List.<String>of(), List.of("-Dhwtool.fds=0,2"))) {
            for (String[] args : stdoutCommands()) {
                Outcome o = viaShell(">&-", hwtool(jvm, args));
                String what = jvm + " " + String.join(" ", args) + " >&-: " + o;
                assertEquals(Cause.OS_ERROR.exitCode(), o.exit(), what);
                assertFalse(o.err().contains("saved"), what);
                assertFalse(o.err().contains("\tat "), what);
                String target = args[0].equals("msr") && args[1].equals("save") ? args[4] : "standard output";
                String why = jvm.isEmpty()
                        ? "descriptor 1 was closed when hwtool started: it is now " + modules + ", which the Java runtime opened itself"
                        : "descriptor 1 was not passed to hwtool by its caller: it is " + modules
                        + ", which hwtool's Java runtime opened itself";
                assertEquals("hwtool: cannot write " + target + ": " + why, o.errLines().getFirst(), what);
            }
        }
    }

    /**
     * Every descriptor the JVM holds, tried through every way to name it: hwtool batch reads its
     * lines from a FIFO (a descriptor the JVM opened), the test lists /proc/PID/fd once the first
     * line has run, then gives one {@code msr save -o PATH} line per path. 0 (/dev/null), 1 and 2
     * (files of the test) were passed and are written through; every other one is refused. Once
     * as java started by hand (no list), once with the list a launcher would pass.
     */
    @Test
    void everyDescriptorTheJvmOpenedIsRefusedByEveryName() throws Exception {
        everyDescriptor(List.of(), Files.createDirectory(dir.resolve("unlisted")));
        everyDescriptor(List.of("-Dhwtool.fds=0,1,2"), Files.createDirectory(dir.resolve("listed")));
    }

    private void everyDescriptor(List<String> jvm, Path dir) throws Exception {
        Path fifo = dir.resolve("lines");
        assertEquals(0, new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor());
        Path fdLink = Files.createSymbolicLink(dir.resolve("fd-dir"), Path.of("/proc/self/fd"));
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process p = HwtoolProcess.builder(hwtool(jvm, "batch", fifo.toString()))
                .redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                // Appended to, both: a save file written through /proc/self/fd/2 goes to the end
                // (OutputFile appends behind a descriptor), and stderr's own offset must not overwrite it.
                .redirectOutput(ProcessBuilder.Redirect.appendTo(out.toFile()))
                .redirectError(ProcessBuilder.Redirect.appendTo(err.toFile())).start();
        long pid = p.pid();
        List<Integer> held = new ArrayList<>();
        List<String> tried = new ArrayList<>();
        try (OutputStream lines = Files.newOutputStream(fifo)) { // blocks until the batch opens the FIFO
            lines.write(("msr save IA32_DEBUGCTL --backend sim --profile skylake -o " + dir.resolve("first.json") + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            lines.flush();
            for (int i = 0; i < 30000 && !Files.exists(dir.resolve("first.json")); i++) {
                assertTrue(p.isAlive(), () -> "the batch ended early: " + read(err));
                Thread.sleep(10);
            }
            assertTrue(Files.exists(dir.resolve("first.json")), "the first line ran");
            try (Stream<Path> fds = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
                fds.forEach(f -> held.add(Integer.parseInt(f.getFileName().toString())));
            }
            Path chain = Files.createSymbolicLink(dir.resolve("chain"), dir.resolve("fd-dir")); // a link to a link
            StringBuilder b = new StringBuilder();
            for (int n : held) {
                Path fileLink = Files.createSymbolicLink(dir.resolve("link-" + n), Path.of("/proc/self/fd/" + n));
                for (String path : List.of("/proc/self/fd/" + n, "/dev/fd/" + n, "/proc/" + pid + "/fd/" + n,
                        "/proc/thread-self/fd/" + n, fdLink + "/" + n, chain + "/" + n, fileLink.toString())) {
                    tried.add(path);
                    b.append("msr save IA32_DEBUGCTL --backend sim --profile skylake -o ").append(path).append('\n');
                }
            }
            lines.write(b.toString().getBytes(StandardCharsets.UTF_8));
        }
        assertTrue(p.waitFor(600, TimeUnit.SECONDS), "the batch ended");
        // The tries, for the record (as SignalsTest prints its own).
        System.out.println("OutputDescriptorsTest " + (jvm.isEmpty() ? "without a list" : jvm) + ": the JVM held "
                + held + "; " + tried.size() + " paths tried");
        String errText = Files.readString(err);
        String outText = Files.readString(out);
        assertTrue(held.containsAll(List.of(0, 1, 2)) && held.size() > 3, "the JVM holds descriptors of its own: " + held);
        assertFalse(errText.contains("\tat "), errText);
        for (String path : tried) {
            int n = Integer.parseInt(path.substring(path.lastIndexOf('/') + 1).replace("link-", ""));
            String refused = "hwtool: cannot write " + path + ": descriptor " + n + " ";
            if (n <= 2) {
                assertFalse(errText.contains("hwtool: cannot write " + path + ":"), path + " was passed: " + errText);
                assertTrue(errText.contains("saved 1 register value (1 register x 1 CPU) to " + path + "\n"), path + ": " + errText);
            } else {
                assertTrue(errText.contains(refused), path + " is the JVM's own: " + errText);
            }
        }
        // What went through 1 and 2: one save file per way of naming them.
        int ways = tried.size() / held.size();
        assertEquals(ways, count(outText, "\"registers\""), "stdout got a save file per name of descriptor 1: " + outText);
        assertEquals(ways, count(errText, "\"registers\""), "stderr got a save file per name of descriptor 2");
        assertEquals(Cause.OS_ERROR.exitCode(), p.exitValue(), jvm + ": the batch's first failing line");
    }

    /** A descriptor the caller gave beyond 2 (a shell's {@code 5>>FILE}) is written through when the launcher listed it, and only then. */
    @Test
    void aDescriptorTheCallerGaveIsWrittenThroughWhenListed() throws Exception {
        Path five = dir.resolve("five");
        Files.writeString(five, "before\n");
        String[] save = sim("msr", "save", "IA32_DEBUGCTL", "-o", "/dev/fd/5");
        Outcome listed = viaShell("5>>" + HwtoolProcess.shellQuote(five.toString()), hwtool(List.of("-Dhwtool.fds=0,1,2,5"), save));
        assertEquals(0, listed.exit(), listed.toString());
        String content = Files.readString(five);
        assertTrue(content.startsWith("before\n") && content.contains("\"registers\""), "appended, as >> opened it: " + content);

        Outcome unlisted = viaShell("5>>" + HwtoolProcess.shellQuote(five.toString()), hwtool(List.of(), save));
        assertEquals(Cause.OS_ERROR.exitCode(), unlisted.exit(), unlisted.toString());
        assertTrue(unlisted.errLines().getFirst().startsWith("hwtool: cannot write /dev/fd/5: descriptor 5 (" + five
                + ") is not known to be passed by hwtool's caller"), unlisted.toString());
        assertEquals(content, Files.readString(five), "not written without the list");
    }

    private static int count(String s, String what) {
        int n = 0;
        for (int i = s.indexOf(what); i >= 0; i = s.indexOf(what, i + 1)) {
            n++;
        }
        return n;
    }

    private static String read(Path p) {
        try {
            return Files.readString(p);
        } catch (IOException e) {
            return e.toString();
        }
    }
}
