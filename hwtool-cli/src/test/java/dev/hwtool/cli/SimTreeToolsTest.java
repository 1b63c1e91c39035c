package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * 'hwtool sim exec' and 'hwtool sim mount' with tools no one here wrote: Debian's msr-tools and
 * Todd Allen's cpuid read the simulated /dev/cpu through their own kernel-driver paths and must
 * print what hwtool prints for the same simulated machine. Three profiles (a client core, a hybrid
 * part, Ice Lake) keep the time small; the simulator's own tests cover the rest.
 */
class SimTreeToolsTest {

    private static final String[] REGISTERS = {"0x345", "0x1a0", "0x1d9"};
    private static final String[][] OPTIONS = {{}, {"-x"}, {"-X", "-0"}, {"-d"}, {"-u", "-c"}, {"-o", "-c", "-0"},
            {"-f", "7:0"}, {"-x", "-f", "15:8"}, {"-r"}, {"-p", "1", "-x", "-c"}};

    static void requireTree() throws IOException, InterruptedException {
        Require.that(Files.exists(Path.of("/dev/fuse")), "no /dev/fuse (modprobe fuse; docker run --device /dev/fuse)");
        dev.hwtool.testing.Preconditions.library("libfuse3.so.3", "libfuse3-3"); // by soname, as Libfuse loads it
        Require.tool("/usr/bin/unshare");
        Process p = new ProcessBuilder("unshare", "--mount", "true").redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        dev.hwtool.testing.Preconditions.privileged(p.waitFor() == 0, "unshare --mount needs CAP_SYS_ADMIN (run as root, not in an unprivileged container)");
    }

    private static Run exec(String profile, Path trace, String script) {
        List<String> args = new ArrayList<>(List.of("sim", "exec", "--profile", profile));
        if (trace != null) {
            args.addAll(List.of("--trace", trace.toString()));
        }
        args.addAll(List.of("--", "/bin/sh", "-c", script));
        return Run.of(args.toArray(String[]::new));
    }

    private static String q(Path p) {
        return "'" + p + "'";
    }

    @ParameterizedTest
    @ValueSource(strings = {"skylake", "alderlake", "icelake"})
    void rdmsrThroughTheTreePrintsWhatHwtoolRdmsrPrints(String profile, @TempDir Path dir) throws Exception {
        requireTree();
        Require.tool("/usr/sbin/rdmsr");
        StringBuilder script = new StringBuilder("set -e\n");
        List<String[]> cases = new ArrayList<>();
        for (String reg : REGISTERS) {
            for (String[] opts : OPTIONS) {
                String[] argv = new String[opts.length + 1];
                System.arraycopy(opts, 0, argv, 0, opts.length);
                argv[opts.length] = reg;
                script.append("/usr/sbin/rdmsr ").append(String.join(" ", argv)).append(" > ")
                        .append(q(dir.resolve("out" + cases.size()))).append('\n');
                cases.add(argv);
            }
        }
        Run r = exec(profile, null, script.toString());
        assertEquals(0, r.exit(), r.toString());
        for (int i = 0; i < cases.size(); i++) {
            List<String> ours = new ArrayList<>(List.of("--backend", "sim", "--profile", profile));
            ours.addAll(List.of(cases.get(i)));
            Run h = Run.of(prepend("rdmsr", ours));
            assertEquals(0, h.exit(), h.toString());
            assertArrayEquals(h.bytes(), Files.readAllBytes(dir.resolve("out" + i)),
                    profile + ": rdmsr " + String.join(" ", cases.get(i)) + " through the tree vs hwtool rdmsr");
        }
    }

    private static String[] prepend(String first, List<String> rest) {
        List<String> all = new ArrayList<>();
        all.add(first);
        all.addAll(rest);
        return all.toArray(String[]::new);
    }

    @Test
    void wrmsrThenRdmsrRoundTripsOnOneMachineAndFaultsAreMsrToolsOwn(@TempDir Path dir) throws Exception {
        requireTree();
        Require.tool("/usr/sbin/rdmsr");
        Require.tool("/usr/sbin/wrmsr");
        Path trace = dir.resolve("trace.jsonl");
        String script = """
                wrmsr -p 1 0x4c1 0x123456789abc && rdmsr -p 1 0x4c1 > %1$s/rt
                rdmsr -p 0 0x4c1 > %1$s/other
                rdmsr 0x12345 2> %1$s/unknown; echo $? >> %1$s/unknown
                wrmsr 0x3f1 0x10 2> %1$s/reserved; echo $? >> %1$s/reserved
                wrmsr 0x345 0 2> %1$s/readonly; echo $? >> %1$s/readonly
                exit 7
                """.formatted(dir);
        Run r = exec("skylake", trace, script);
        assertEquals(7, r.exit(), "sim exec exits with the command's status: " + r);
        assertEquals("123456789abc\n", Files.readString(dir.resolve("rt")));
        assertEquals("0\n", Files.readString(dir.resolve("other")), "CPU 0 has its own IA32_A_PMC0");
        assertEquals("rdmsr: CPU 0 cannot read MSR 0x00012345\n4\n", Files.readString(dir.resolve("unknown")));
        assertEquals("wrmsr: CPU 0 cannot set MSR 0x000003f1 to 0x0000000000000010\n4\n", Files.readString(dir.resolve("reserved")));
        assertEquals("wrmsr: CPU 0 cannot set MSR 0x00000345 to 0x0000000000000000\n4\n", Files.readString(dir.resolve("readonly")));
        List<String> lines = Files.readAllLines(trace);
        assertTrue(lines.get(0).matches("\\{\"time\":\"[^\"]+Z\",\"pid\":\\d+,\"cpu\":1,\"kind\":\"msr\",\"op\":\"write\","
                + "\"reg\":\"0x000004c1\",\"value\":\"0x0000123456789abc\",\"result\":\"ok\"}"), lines.get(0));
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"reg\":\"0x00012345\",\"value\":null,\"result\":\"EIO\"")), lines.toString());
        assertTrue(lines.stream().anyMatch(l -> l.contains("\"op\":\"write\",\"reg\":\"0x000003f1\",\"value\":\"0x0000000000000010\",\"result\":\"EIO\"")),
                lines.toString());
    }

    @Test
    void cpuidKernelPathPrintsWhatHwtoolCpuidPrintsAndDecodesAsFromADump(@TempDir Path dir) throws Exception {
        requireTree();
        Require.tool("/usr/bin/cpuid");
        for (String profile : List.of("skylake", "alderlake")) {
            Run r = exec(profile, null, "cpuid -k -1 -r > %1$s/raw 2> %1$s/raw.err && cpuid -k -1 > %1$s/decoded 2>/dev/null"
                    .formatted(dir));
            assertEquals(0, r.exit(), r.toString());
            Run ours = Run.of("cpuid", "--backend", "sim", "--profile", profile, "-1");
            assertEquals(0, ours.exit(), ours.toString());
            // cpuid -k names the CPU it opened ("CPU 0:"); its instruction path, which hwtool's
            // layout follows, does not ("CPU:"). Every other byte must agree.
            String raw = Files.readString(dir.resolve("raw"));
            assertTrue(raw.startsWith("CPU 0:\n"), raw.lines().findFirst().orElse(""));
            assertEquals(ours.out(), raw.replaceFirst("^CPU 0:\n", "CPU:\n"), profile);
            Path dump = dir.resolve(profile + ".dump");
            Files.writeString(dump, ours.out());
            Process f = new ProcessBuilder("cpuid", "-1", "-f", dump.toString()).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String fromDump = new String(f.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, f.waitFor());
            String decoded = Files.readString(dir.resolve("decoded"));
            assertTrue(decoded.lines().count() > 100, decoded);
            assertEquals(fromDump.replaceFirst("^CPU:\n", "CPU 0:\n"), decoded, profile + ": cpuid -k -1 vs cpuid -1 -f");
        }
    }

    /** A shipped scenario replayed with wrmsr/rdmsr through the tree ends with the values 'sim run' reports. */
    @Test
    void aShippedScenarioReplayedWithMsrToolsGivesTheSameValues(@TempDir Path dir) throws Exception {
        requireTree();
        Require.tool("/usr/sbin/wrmsr");
        // builtin:pebs-enable-reserved-bits, step by step (IA32_PEBS_ENABLE = 0x3f1, MSR_PEBS_DATA_CFG = 0x3f2).
        String script = """
                wrmsr 0x3f1 0xf0000000f; echo "w $?"
                rdmsr -x 0x3f1
                wrmsr 0x3f1 0x10 2>/dev/null; echo "w $?"
                wrmsr 0x3f1 0x1000000000 2>/dev/null; echo "w $?"
                wrmsr 0x3f1 0x8000000000000000 2>/dev/null; echo "w $?"
                rdmsr 0x3f2 2>/dev/null; echo "r $?"
                rdmsr -x 0x3f1
                """;
        Run run = exec("skylake", null, "exec > " + q(dir.resolve("replay")) + "\n" + script);
        assertEquals(0, run.exit(), run.toString());
        String replay = Files.readString(dir.resolve("replay"));
        assertEquals("w 0\nf0000000f\nw 4\nw 4\nw 4\nr 4\nf0000000f\n", replay);

        Run sim = Run.of("sim", "run", "--json", "builtin:pebs-enable-reserved-bits");
        assertEquals(0, sim.exit(), sim.toString());
        List<String> outcomes = new ArrayList<>();
        Matcher m = Pattern.compile("\"outcome\":\"(\\w+)\",\"value\":(null|\"0x[0-9a-f]+\")").matcher(sim.out());
        while (m.find()) {
            outcomes.add(m.group(1) + " " + m.group(2).replace("\"", ""));
        }
        // profile, wrmsr, expect (the value), three expect-fault wrmsr, one expect-fault rdmsr.
        assertEquals(List.of("done null", "done null", "passed 0x0000000f0000000f", "faulted null", "faulted null", "faulted null",
                "faulted null"), outcomes, sim.out());
    }

    @Test
    void sigtermDuringAccessesUnmountsCleanlyAndEndsTheReaders(@TempDir Path dir) throws Exception {
        requireTree();
        Path python = dev.hwtool.testing.Preconditions.onPath("python3", "python3");
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        Path trace = dir.resolve("trace.jsonl");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process server = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.hwtool.cli.Main", "sim", "mount", "--cpus", "2", "--trace", trace.toString(), mnt.toString())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        Process reader = null;
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("SIMULATED /dev/cpu tree at " + mnt + ": profile skylake, CPUs 0,1"), first);
            Path py = dir.resolve("loop.py");
            Files.writeString(py, """
                    import os, struct, sys
                    fd = os.open(sys.argv[1] + "/0/msr", os.O_RDWR)
                    n = 0
                    try:
                        while True:
                            os.pwrite(fd, struct.pack("<Q", n & 0xffffffffffff), 0x4c1)
                            v = struct.unpack("<Q", os.pread(fd, 8, 0x4c1))[0]
                            assert v == n & 0xffffffffffff, (v, n)
                            n += 1
                    except OSError as e:
                        print("stopped after", n, "with", e.strerror)
                    """);
            reader = new ProcessBuilder(python.toString(), py.toString(), mnt.toString()).redirectErrorStream(true).start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((!Files.exists(trace) || Files.size(trace) < 20_000) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            server.destroy(); // SIGTERM
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "sim mount did not end after SIGTERM");
            assertEquals(143, server.exitValue(), "unmounted, then 128 + SIGTERM");
            assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mnt + " "), "a stale mount is left");
            assertTrue(reader.waitFor(60, TimeUnit.SECONDS), "the reader hangs on the unmounted tree");
            String said = new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            // The kernel fails a request in flight at the abort with ECONNABORTED, later ones with ENOTCONN (fs/fuse/dev.c).
            assertTrue(said.matches("stopped after \\d+ with (Transport endpoint is not connected|Software caused connection abort)\\n"),
                    "reader exit " + reader.exitValue() + ": " + said);
            assertTrue(Files.readAllLines(trace).stream().allMatch(l -> l.endsWith("\"result\":\"ok\"}")), "every access before the stop succeeded");
        } finally {
            server.destroyForcibly();
            if (reader != null) {
                reader.destroyForcibly();
            }
        }
    }

    @Test
    void badPathsAreOneLineWithTheirExitCodes(@TempDir Path dir) throws Exception {
        requireTree();
        Run missing = Run.of("sim", "mount", dir.resolve("nowhere").toString());
        assertEquals(3, missing.exit(), missing.toString());
        assertEquals(2, missing.err().lines().count(), missing.err());
        assertTrue(missing.err().lines().toList().get(1).startsWith("hwtool: fix: "), missing.err());
        assertTrue(missing.err().contains("is not a directory"), missing.err());

        String before = System.getProperty("hwtool.fuse.device");
        System.setProperty("hwtool.fuse.device", dir.resolve("no-fuse").toString());
        try {
            Run noFuse = Run.of("sim", "mount", dir.toString());
            assertEquals(5, noFuse.exit(), noFuse.toString());
            assertEquals(2, noFuse.err().lines().count(), noFuse.err());
        assertTrue(noFuse.err().lines().toList().get(1).startsWith("hwtool: fix: "), noFuse.err());
            assertTrue(noFuse.err().contains("FUSE is not available here") && noFuse.err().contains("modprobe fuse"), noFuse.err());
        } finally {
            if (before == null) {
                System.clearProperty("hwtool.fuse.device");
            } else {
                System.setProperty("hwtool.fuse.device", before);
            }
        }

        // A second mount on a directory that is already mounted: exit 3, one line.
        Run second = exec("skylake", null, "exec " + ProcessHandle.current().info().command().orElseThrow()
                + " --enable-native-access=ALL-UNNAMED -cp '" + System.getProperty("java.class.path")
                + "' dev.hwtool.cli.Main sim mount /dev/cpu 2> " + q(dir.resolve("second")));
        assertEquals(3, second.exit(), second.toString());
        String err = Files.readString(dir.resolve("second"));
        assertEquals(2, err.lines().count(), err);
        assertTrue(err.contains("/dev/cpu is already a mount point (fuse.hwtool)") && err.contains("fusermount3 -u"), err);

        Run notFound = exec("skylake", null, "exec /no/such/tool 2>/dev/null");
        assertEquals(127, notFound.exit(), notFound.toString());
    }

    @Test
    void sigtermWithANodeHeldOpenEndsAtOnceAndTheHolderIsCutOff(@TempDir Path dir) throws Exception {
        requireTree();
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process server = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.hwtool.cli.Main", "sim", "mount", mnt.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String first = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(first != null && first.startsWith("SIMULATED /dev/cpu tree at " + mnt), first);
            FileChannel held = FileChannel.open(mnt.resolve("0/msr"));
            try {
                assertEquals(8, held.read(ByteBuffer.allocate(8), 0x10));
                server.destroy(); // SIGTERM, while the node stays open and idle
                // The holder never sends another request: the command must not wait for one.
                assertTrue(server.waitFor(30, TimeUnit.SECONDS), "sim mount waits for the holder of an open node");
                assertEquals(143, server.exitValue(), "unmounted, then 128 + SIGTERM");
                assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mnt + " "), "still mounted");
                IOException cut = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                        () -> held.read(ByteBuffer.allocate(8), 0x10));
                assertTrue(String.valueOf(cut.getMessage()).matches("Transport endpoint is not connected|Software caused connection abort"),
                        cut.toString());
            } finally {
                try {
                    held.close();
                } catch (IOException e) {
                    // ENOTCONN: close(2) sends a FLUSH, which meets the aborted connection.
                }
            }
        } finally {
            server.destroyForcibly();
        }
    }

    @Test
    void theTraceIsAnOutputLikeAnyOther(@TempDir Path dir) throws Exception {
        requireTree();
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        // Refused before anything is mounted, exit 13 with the reason (OutputFile's policy), for both commands.
        for (String cmd : List.of("mount", "exec")) {
            List<String> tail = cmd.equals("mount") ? List.of(mnt.toString()) : List.of("--", "true");
            Run intoDir = Run.of(concat(List.of("sim", cmd, "--trace", dir.toString()), tail));
            assertEquals(13, intoDir.exit(), intoDir.toString());
            assertTrue(intoDir.err().startsWith("hwtool: cannot write " + dir + ": Is a directory\n"), intoDir.err());
            Run missing = Run.of(concat(List.of("sim", cmd, "--trace", "/missing-hwtool/t"), tail));
            assertEquals(13, missing.exit(), missing.toString());
            assertTrue(missing.err().startsWith("hwtool: cannot write /missing-hwtool/t: directory /missing-hwtool does not exist"),
                    missing.err());
        }
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mnt + " "), "mounted although refused");

        // A trace that fails while serving (ENOSPC): the access is answered with its own value, not EIO; the
        // mount stops at once and the command says why, exit 13.
        Path python = dev.hwtool.testing.Preconditions.onPath("python3", "python3");
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process server = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.hwtool.cli.Main", "sim", "mount", "--trace", "/dev/full", mnt.toString()).start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8));
            String first = out.readLine();
            assertTrue(first != null && first.startsWith("SIMULATED /dev/cpu tree at " + mnt), first);
            Process reader = new ProcessBuilder(python.toString(), "-c",
                    "import os,sys; fd = os.open(sys.argv[1] + '/0/msr', os.O_RDONLY); print(len(os.pread(fd, 8, 0x10)))",
                    mnt.toString()).redirectErrorStream(true).start();
            assertTrue(reader.waitFor(60, TimeUnit.SECONDS), "the reader hangs");
            assertEquals("8\n", new String(reader.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
            assertTrue(server.waitFor(60, TimeUnit.SECONDS), "sim mount serves on with a trace it cannot write");
            String err = new String(server.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(13, server.exitValue(), err);
            assertEquals("hwtool: cannot write /dev/full: No space left on device\n", err);
            assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mnt + " "), "a stale mount is left");
        } finally {
            server.destroyForcibly();
        }
        // sim exec: the command is stopped (it would sleep a minute) and the exit is 13, not its status.
        long start = System.nanoTime();
        Run ex = exec("skylake", Path.of("/dev/full"), "dd if=/dev/cpu/0/msr bs=8 count=1 skip=2 status=none | wc -c; exec sleep 60");
        assertEquals(13, ex.exit(), ex.toString());
        assertEquals("hwtool: cannot write /dev/full: No space left on device\n", ex.err());
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(50), "sim exec waited for the command");
    }

    private static String[] concat(List<String> a, List<String> b) {
        List<String> all = new ArrayList<>(a);
        all.addAll(b);
        return all.toArray(String[]::new);
    }

    /** 'hwtool sim mount' in a JVM of its own, in a private mount namespace prepared by {@code setup} (sh). */
    private static Process mountInNamespace(String setup, Path dir) throws IOException {
        String java = ProcessHandle.current().info().command().orElseThrow();
        return new ProcessBuilder("unshare", "--mount", "/bin/sh", "-c", setup + " && exec \"$0\" \"$@\"", java,
                "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "dev.hwtool.cli.Main",
                "sim", "mount", dir.toString()).redirectErrorStream(true).start();
    }

    @Test
    void aMountNamespaceWithoutDevFuseOrWithAnotherDeviceThereIsOneError(@TempDir Path dir) throws Exception {
        requireTree();
        // /dev hidden under an empty tmpfs: no /dev/fuse at all.
        Process hidden = mountInNamespace("mount -t tmpfs tmpfs /dev", dir);
        String said = new String(hidden.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(5, hidden.waitFor(), said);
        assertEquals("hwtool: /dev/fuse does not exist, so FUSE is not available here\n"
                + "hwtool: fix: load the module (modprobe fuse) or give the container the device (docker run --device /dev/fuse)\n", said);
        // /dev/null where /dev/fuse should be: libfuse opens it and the kernel refuses the mount; libfuse's
        // own message, captured through fuse_set_log_func, becomes the one line.
        Process other = mountInNamespace("mount --bind /dev/null /dev/fuse", dir);
        said = new String(other.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(13, other.waitFor(), said);
        assertEquals("hwtool: cannot mount a FUSE file system on " + dir + ": mount failed: Invalid argument\n", said);
    }

    @Test
    void onAHostWithoutDevCpuTheNamespaceGetsOneAndTheHostDevIsUntouched(@TempDir Path dir) throws Exception {
        requireTree();
        Require.tool("/usr/sbin/rdmsr");
        // The "host": a namespace whose /dev is a copy of this one without cpu/ (as on a machine
        // with neither the msr nor the cpuid driver loaded).
        Path fake = Files.createDirectory(dir.resolve("dev"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        String inner = "ls /dev/cpu > " + q(dir.resolve("ls")) + " && rdmsr 0x345 > " + q(dir.resolve("rdmsr"))
                + " && ls /dev/pts/ptmx /dev/null > /dev/null";
        Process p = new ProcessBuilder("unshare", "--mount", "/bin/sh", "-c",
                "mount -t tmpfs tmpfs " + q(fake) + " && cp -a /dev/. " + q(fake) + " && rm -rf " + q(fake.resolve("cpu"))
                        + " && mount --move " + q(fake) + " /dev && \"$0\" \"$@\"; rc=$?; test ! -e /dev/cpu || rc=99; exit $rc",
                java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"), "dev.hwtool.cli.Main",
                "sim", "exec", "--", "/bin/sh", "-c", inner).redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), "(99: the outer /dev got a cpu directory) " + said);
        assertEquals("0\n1\n2\n3\n4\n5\n6\n7\n", Files.readString(dir.resolve("ls")));
        assertEquals("33c5\n", Files.readString(dir.resolve("rdmsr")));
    }

    @Test
    void withoutTheRightToCreateAMountNamespaceSimExecSaysWhy() throws Exception {
        requireTree();
        Require.tool("/usr/bin/setpriv");
        // Root without any capability (an empty bounding set): unshare(CLONE_NEWNS) is EPERM.
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process p = new ProcessBuilder("setpriv", "--bounding-set", "-all", java, "--enable-native-access=ALL-UNNAMED",
                "-cp", System.getProperty("java.class.path"), "dev.hwtool.cli.Main", "sim", "exec", "--", "true")
                .redirectErrorStream(true).start();
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(6, p.waitFor(), said);
        assertEquals("hwtool: sim exec needs a private mount namespace and cannot create one (unshare: unshare failed: "
                + "Operation not permitted)\nhwtool: fix: run as root, or where CAP_SYS_ADMIN and unshare(2) are allowed "
                + "(not in an unprivileged container)\n", said);
    }

    @Test
    void evenSigkillLeavesNoStaleMount(@TempDir Path dir) throws Exception {
        requireTree();
        Require.tool("/usr/bin/fusermount3");
        Path mnt = Files.createDirectory(dir.resolve("mnt"));
        String java = ProcessHandle.current().info().command().orElseThrow();
        Process server = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-cp", System.getProperty("java.class.path"),
                "dev.hwtool.cli.Main", "sim", "mount", mnt.toString()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try {
            String first = new BufferedReader(new InputStreamReader(server.getInputStream(), StandardCharsets.UTF_8)).readLine();
            assertTrue(first != null && first.startsWith("SIMULATED /dev/cpu tree at " + mnt), first);
            assertTrue(Files.exists(mnt.resolve("0/msr")));
        } finally {
            server.destroyForcibly(); // SIGKILL: no shutdown hook, no unmount of our own
        }
        server.waitFor();
        // fusermount3's auto_unmount helper notices the death and unmounts (lazily); wait for it.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mnt + " ") && System.nanoTime() < deadline) {
            Thread.sleep(50);
        }
        assertFalse(Files.readString(Path.of("/proc/self/mountinfo")).contains(" " + mnt + " "), "a stale mount after SIGKILL");
    }

    @Test
    void withoutALoadableLibfuseSimMountSaysSo(@TempDir Path dir) throws Exception {
        requireTree();
        // The library replaced by an empty file, in a namespace of its own: dlopen fails.
        // The file the dynamic linker would load for the soname (ldconfig -p), wherever it is.
        Path libfuse = dev.hwtool.testing.Preconditions.library("libfuse3.so.3", "libfuse3-3");
        Process p = mountInNamespace("mount --bind /dev/null \"$(readlink -f " + libfuse + ")\"", dir);
        String said = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertEquals(11, p.waitFor(), said);
        assertTrue(said.startsWith("hwtool: libfuse3 cannot be loaded (libfuse3.so.3: ")
                && said.endsWith(")\nhwtool: fix: install it: apt-get install fuse3 libfuse3-3\n"), said);
        assertEquals(2, said.lines().count(), said);
    }
}
