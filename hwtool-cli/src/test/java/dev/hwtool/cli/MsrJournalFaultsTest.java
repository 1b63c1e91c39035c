package dev.hwtool.cli;

import dev.hwtool.msr.MsrJournal;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.io.CpuList;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The undo journal and the MSR nodes under faults, with hwtool run as real processes: concurrent
 * wrmsr and restore --last runs, a full and a read-only state directory, damaged journals, and
 * MSR nodes on a read-only mount. The mount tests run in a private mount namespace
 * ({@code unshare -m}, root) whose /dev/cpu holds fixture files, so that a register write, had
 * it happened, shows in a file.
 */
class MsrJournalFaultsTest {

    @TempDir
    Path tmp;

    @AfterEach
    void clear() {
        System.clearProperty("hwtool.state.dir");
    }

    private record Proc(int exit, String out, String err) {
        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** The java command that runs hwtool with this test's class path. */
    private static List<String> java(Path state) {
        return List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Dhwtool.state.dir=" + state,
                "-cp", System.getProperty("java.class.path"), Main.class.getName());
    }

    private static Process start(List<String> cmd) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("HWTOOL_BACKEND");
        pb.environment().remove("HWTOOL_DEBUG");
        pb.redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        return pb.start();
    }

    private static Proc finish(Process p) throws IOException, InterruptedException {
        // stderr is small; read stdout first, then stderr (neither fills its pipe while the other is read)
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "hwtool did not finish");
        return new Proc(p.exitValue(), out, err);
    }

    /** Runs {@code runs} hwtool processes at once, each with its own arguments; their results in order. */
    private static List<Proc> together(Path state, List<List<String>> runs) throws IOException, InterruptedException {
        List<Process> ps = new ArrayList<>();
        for (List<String> args : runs) {
            List<String> cmd = new ArrayList<>(java(state));
            cmd.addAll(args);
            ps.add(start(cmd));
        }
        List<Proc> out = new ArrayList<>();
        for (Process p : ps) {
            out.add(finish(p));
        }
        return out;
    }

    /** The simulated backend's journal file under the state directory {@code state}: its sim/ subdirectory. */
    private static Path simJournal(Path state) {
        return state.resolve(MsrJournal.SIMULATOR_DIR).resolve(MsrJournal.FILE);
    }

    /** The entries of the simulated backend's journal (every test of this class but the mount ones writes there). */
    private static List<Map<String, Object>> journal(Path state) throws IOException {
        return journalAt(simJournal(state));
    }

    private static List<Map<String, Object>> journalAt(Path f) throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        if (Files.exists(f)) {
            for (String line : Files.readAllLines(f)) {
                assertFalse(line.isBlank(), "no padding left behind");
                out.add(JSON.std.mapFrom(line));
            }
        }
        return out;
    }

    private static long batch(Map<String, Object> e) {
        return ((Number) e.get("batch")).longValue();
    }

    // ---- concurrent processes -----------------------------------------------------------------

    @Test
    void concurrentWrmsrRunsGetUniqueBatchesAndLoseNoLine() throws Exception {
        Path state = tmp.resolve("state");
        int rounds = 3;
        int perRound = 4;
        int cpus = 8; // the skylake profile's
        for (int r = 0; r < rounds; r++) {
            List<List<String>> runs = new ArrayList<>();
            for (int i = 0; i < perRound; i++) {
                runs.add(List.of("wrmsr", "--profile", "skylake", "-a", "IA32_DEBUGCTL", i % 2 == 0 ? "1" : "0x2"));
            }
            for (Proc p : together(state, runs)) {
                assertEquals(0, p.exit(), p::toString);
            }
        }
        List<Map<String, Object>> j = journal(state);
        assertEquals(rounds * perRound * cpus, j.size(), "every process's every line");
        // each batch is one run: its lines are together (the lock is held for the whole batch),
        // and the ids are 1..12, each once
        Map<Long, Integer> sizes = new LinkedHashMap<>();
        long previous = -1;
        for (Map<String, Object> e : j) {
            long b = batch(e);
            if (b != previous) {
                assertFalse(sizes.containsKey(b), "batch " + b + " split by another run's lines");
                previous = b;
            }
            sizes.merge(b, 1, Integer::sum);
        }
        assertEquals(rounds * perRound, sizes.size(), "unique batch ids: " + sizes);
        sizes.values().forEach(n -> assertEquals(cpus, n, "one line per CPU: " + sizes));
        assertEquals(java.util.stream.LongStream.rangeClosed(1, rounds * perRound).boxed().toList(),
                sizes.keySet().stream().sorted().toList());
    }

    @Test
    void concurrentRestoreLastRunsUndoABatchOnceEach() throws Exception {
        for (int round = 0; round < 2; round++) {
            Path state = tmp.resolve("one" + round);
            Proc w = together(state, List.of(List.of("wrmsr", "--profile", "skylake", "IA32_DEBUGCTL", "1"))).getFirst();
            assertEquals(0, w.exit(), w::toString);
            List<List<String>> undo = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                undo.add(List.of("msr", "restore", "--last", "--force", "--profile", "skylake"));
            }
            List<Proc> ps = together(state, undo);
            List<Integer> exits = ps.stream().map(Proc::exit).sorted().toList();
            assertEquals(List.of(0, 3, 3), exits, ps::toString);
            for (Proc p : ps) {
                if (p.exit() == 3) {
                    assertTrue(p.err().contains("hwtool: nothing to undo: no write batch in " + simJournal(state)
                            + " is left to undo"), p::toString);
                } else {
                    assertTrue(p.out().startsWith("undid batch 1 (wrmsr at "), p::toString);
                }
            }
            List<Map<String, Object>> j = journal(state);
            assertEquals(List.of("wrmsr", "undo"), j.stream().map(e -> (String) e.get("kind")).toList());
            assertEquals(1L, ((Number) j.get(1).get("undoes")).longValue());
        }
        // three batches, three concurrent undos: each batch undone once
        Path state = tmp.resolve("three");
        for (int i = 0; i < 3; i++) {
            assertEquals(0, together(state, List.of(List.of("wrmsr", "--profile", "skylake", "IA32_DEBUGCTL", "1")))
                    .getFirst().exit());
        }
        List<Proc> ps = together(state, List.of(
                List.of("msr", "restore", "--last", "--force", "--profile", "skylake"),
                List.of("msr", "restore", "--last", "--force", "--profile", "skylake"),
                List.of("msr", "restore", "--last", "--force", "--profile", "skylake")));
        ps.forEach(p -> assertEquals(0, p.exit(), p::toString));
        List<Long> undone = journal(state).stream().filter(e -> "undo".equals(e.get("kind")))
                .map(e -> ((Number) e.get("undoes")).longValue()).toList();
        assertEquals(List.of(3L, 2L, 1L), undone, "newest first, each once");
    }

    // ---- damaged journals, in process ----------------------------------------------------------

    @Test
    void aDamagedLineBlocksOnlyRestoreLastAndATornLastLineNothing() throws IOException {
        Path state = tmp.resolve("damaged");
        System.setProperty("hwtool.state.dir", state.toString());
        assertEquals(0, Run.of("wrmsr", "--profile", "skylake", "IA32_DEBUGCTL", "1").exit());
        Path f = simJournal(state);
        Files.writeString(f, "\u001b[2J not json\n", java.nio.file.StandardOpenOption.APPEND);

        Run w = Run.of("wrmsr", "--profile", "skylake", "IA32_DEBUGCTL", "1");
        assertEquals(0, w.exit(), w::toString);
        assertTrue(w.err().contains("hwtool: warning: MSR journal " + f + " line 2 is damaged (not valid JSON);"
                + " 'msr restore --last' refuses until it is deleted"), w::toString);
        assertFalse(w.err().contains("\u001b"), "the line's bytes are not echoed");

        Run r = Run.of("msr", "restore", "--last", "--force", "--profile", "skylake");
        assertEquals(3, r.exit(), r::toString);
        assertTrue(r.err().contains("hwtool: MSR journal " + f + " line 2 is damaged (not valid JSON): cannot tell"
                + " which batches are in effect; nothing written\n"), r::toString);
        assertEquals(3, Files.readAllLines(f).size(), "nothing undone, nothing appended");

        // the user deletes the line; a crash then tears the next append
        List<String> lines = new ArrayList<>(Files.readAllLines(f));
        lines.remove(1);
        Files.write(f, lines);
        Files.writeString(f, lines.getLast().substring(0, 40), java.nio.file.StandardOpenOption.APPEND);
        Run torn = Run.of("msr", "restore", "--last", "--force", "--profile", "skylake");
        assertEquals(0, torn.exit(), torn::toString);
        assertTrue(torn.out().startsWith("undid batch 2 "), torn::toString);
        assertTrue(torn.err().contains("hwtool: warning: MSR journal " + f + " line 3 is incomplete (not valid JSON,"
                + " no newline at the end), a write cut short by a crash before its register was written; ignored"),
                torn::toString);
        List<Map<String, Object>> j = journal(state);
        assertEquals(List.of(1L, 2L, 3L), j.stream().map(MsrJournalFaultsTest::batch).toList(), "the torn tail is gone");
    }

    @Test
    void aJournalThatCannotBeReadIsOneLineAndExit3() throws IOException {
        Path state = tmp.resolve("dir");
        System.setProperty("hwtool.state.dir", state.toString());
        Files.createDirectories(simJournal(state));
        Run w = Run.of("wrmsr", "--profile", "skylake", "IA32_DEBUGCTL", "1");
        assertEquals(3, w.exit(), w::toString);
        assertEquals("wrmsr: the MSR journal file " + simJournal(state)
                + " is not a regular file: refused, nothing read or written\n"
                + "hwtool: fix: move it aside; hwtool starts a new journal\n",
                w.err().replaceFirst("(?s)^hwtool: note: SIMULATED[^\n]*\n", ""));
    }

    // ---- mount namespaces: full and read-only state, read-only MSR nodes ---------------------

    /** Fixture /dev/cpu/N/msr files for the online CPUs, IA32_DEBUGCTL (0x1d9) holding {@code value}. */
    private Path fixtureCpus(long value) throws IOException {
        Path dev = tmp.resolve("devcpu");
        String online = Files.readString(Path.of("/sys/devices/system/cpu/online")).trim();
        for (int cpu : CpuList.parse(online)) {
            Path node = dev.resolve(cpu + "/msr");
            Files.createDirectories(node.getParent());
            try (var f = java.nio.channels.FileChannel.open(node, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.WRITE)) {
                f.write(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(0, value), 0x1d9);
                f.write(ByteBuffer.allocate(1), 0xfff);
            }
            cpuidNode(cpu, dev.resolve(cpu + "/cpuid"));
        }
        return dev;
    }

    /**
     * The host's real cpuid node for {@code cpu} beside the fixture's msr file, a character device
     * of the same numbers (the cpuid driver's major 203, minor the CPU: arch/x86/kernel/cpuid.c),
     * where the host has one: a careful write reads the CPUID of the CPU it writes, and a CPU
     * outside this process's affinity mask (taskset, a cpuset) is read through that node.
     */
    private static void cpuidNode(int cpu, Path node) throws IOException {
        Path host = Path.of("/dev/cpu/" + cpu + "/cpuid");
        if (!Files.exists(host) || !dev.hwtool.testing.Preconditions.isRoot()) {
            return; // mknod needs CAP_MKNOD; the tests using the fixture need root anyway, and say so
        }
        long rdev = ((Number) Files.getAttribute(host, "unix:rdev")).longValue();
        // glibc's dev_t as stat(2) returns it (sys/sysmacros.h, gnu_dev_major and gnu_dev_minor)
        long major = ((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL);
        long minor = (rdev & 0xff) | ((rdev >>> 12) & ~0xffL);
        try {
            Process p = new ProcessBuilder("mknod", node.toString(), "c", Long.toString(major), Long.toString(minor))
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            if (p.waitFor() != 0) {
                throw new IOException("mknod " + node + ": " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    private static long debugctl(Path dev, int cpu) throws IOException {
        byte[] b = Files.readAllBytes(dev.resolve(cpu + "/msr"));
        return ByteBuffer.wrap(b, 0x1d9, 8).order(ByteOrder.LITTLE_ENDIAN).getLong();
    }

    /**
     * {@code sh -c script} as root in a private mount namespace whose /dev is a tmpfs holding the
     * few nodes a JVM needs and {@code devCpu} as /dev/cpu (so the host need not have /dev/cpu,
     * and nothing is created in its /dev); $HW runs hwtool with its state in {@code state}.
     */
    private Proc inMountNamespace(Path devCpu, Path state, String script) throws IOException, InterruptedException {
        dev.hwtool.testing.Preconditions.privileged("0".equals(uid()), "mount namespaces need root (unshare -m, mount)");
        Require.tool("/usr/bin/unshare");
        String hw = java(state).stream().map(MsrJournalFaultsTest::quote).collect(Collectors.joining(" "));
        Path dev = Files.createDirectories(tmp.resolve("dev"));
        String privateDev = String.join("\n",
                "mount -t tmpfs -o size=1m,mode=755 tmpfs " + dev,
                "for n in null zero full random urandom; do touch " + dev + "/$n; mount --bind /dev/$n " + dev + "/$n; done",
                "mkdir " + dev + "/cpu",
                "mount --bind " + devCpu + " " + dev + "/cpu",
                "mount --move " + dev + " /dev");
        Process p = start(List.of("/usr/bin/unshare", "-m", "sh", "-euc",
                "mount --make-rprivate /\n" + privateDev + "\nHW=\"" + hw.replace("\"", "\\\"") + "\"\n" + script));
        return finish(p);
    }

    private static String uid() throws IOException {
        return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                .map(l -> l.split("\\s+")[2]).findFirst().orElse("?");
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    @Test
    void aFullOrReadOnlyStateDirectoryStopsTheBatchBeforeAnyRegister() throws Exception {
        Path dev = fixtureCpus(0);
        Path state = tmp.resolve("state");
        Files.createDirectories(state);
        List<Integer> online = CpuList.parse(
                Files.readString(Path.of("/sys/devices/system/cpu/online")).trim());
        Proc p = inMountNamespace(dev, state, String.join("\n",
                "mount -t tmpfs -o size=64k tmpfs " + state,
                // full: the file system has no free block left
                "dd if=/dev/zero of=" + state + "/fill bs=1k 2>/dev/null || true",
                "set +e",
                "eval \"$HW wrmsr -a IA32_DEBUGCTL 1\"; echo \"full: exit $?\"",
                "ls " + state + " | tr '\\n' ' '; echo",
                // room again: the same write goes through (so the fixture does show writes)
                "rm " + state + "/fill",
                "eval \"$HW wrmsr -a IA32_DEBUGCTL 1\"; echo \"room: exit $?\"",
                "echo \"journal lines: $(wc -l < " + state + "/" + MsrJournal.FILE + ")\"",
                // read-only: nothing written either
                "mount -o remount,ro " + state,
                "eval \"$HW wrmsr -a IA32_DEBUGCTL 0\"; echo \"read-only: exit $?\"",
                // a catalog refusal is still the catalog's (exit 3), not the journal's
                "eval \"$HW wrmsr IA32_DEBUGCTL 0x8000000000000000\"; echo \"refused: exit $?\""));
        String out = p.out();
        assertEquals(0, p.exit(), p::toString);
        assertTrue(out.contains("full: exit 13\n"), p::toString);
        assertTrue(p.err().contains("wrmsr: cannot make room in the MSR journal " + state.resolve(MsrJournal.FILE)
                + ": No space left on device; nothing written\nhwtool: fix: free space on the file system of " + state),
                p::toString);
        assertTrue(out.contains("full: exit 13\nfill " + MsrJournal.FILE + ".lock \n"), "no journal file left behind: " + p);
        assertTrue(out.contains("room: exit 0\n"), p::toString);
        assertTrue(out.contains("journal lines: " + online.size() + "\n"), p::toString);
        assertTrue(out.contains("read-only: exit 13\n"), p::toString);
        assertTrue(out.contains("refused: exit 3\n"), p::toString);
        assertTrue(p.err().contains("wrmsr: cannot lock the MSR journal " + state.resolve(MsrJournal.FILE + ".lock")
                + ": Read-only file system; nothing written"), p::toString);
        for (int cpu : online) {
            assertEquals(1, debugctl(dev, cpu), "CPU " + cpu + ": written once (the run with room), never by the others");
        }
    }

    @Test
    void anMsrNodeOnAReadOnlyMountIsReadableAndItsWriteErrorIsInWords() throws Exception {
        Path dev = fixtureCpus(0x4001);
        Path state = tmp.resolve("state");
        Proc p = inMountNamespace(dev, state, String.join("\n",
                "mount -o remount,bind,ro /dev/cpu",
                "set +e",
                "eval \"$HW rdmsr 0x1d9\"; echo \"rdmsr: exit $?\"",
                "eval \"$HW rdmsr --binding jna 0x1d9\"; echo \"rdmsr jna: exit $?\"",
                "eval \"$HW rdmsr -p 0 --decode IA32_DEBUGCTL\" >/dev/null; echo \"decode: exit $?\"",
                "eval \"$HW wrmsr IA32_DEBUGCTL 1\"; echo \"wrmsr: exit $?\""));
        assertEquals(0, p.exit(), p::toString);
        assertTrue(p.out().startsWith("4001\nrdmsr: exit 0\n4001\nrdmsr jna: exit 0\ndecode: exit 0\n"), p::toString);
        assertTrue(p.out().contains("wrmsr: exit 127\n"), p::toString);
        assertTrue(p.err().contains("wrmsr: open: Read-only file system\nhwtool: fix: to write, give the node on a"
                + " read-write mount"), p::toString);
        assertFalse(p.err().contains("Unknown error"), p::toString);
        assertEquals(0x4001, debugctl(dev, 0));
    }

    // ---- one journal per backend ---------------------------------------------------------------

    /**
     * Simulated writes never touch the journal of this machine's registers: hardware (the fixture
     * /dev/cpu) and simulator batches made one after the other each stay undoable with their own
     * backend. A simulated batch an earlier hwtool left in the hardware journal (before the
     * simulator had a journal of its own) is passed over by the hardware's restore --last, not
     * refused: it changed no register of this machine.
     */
    @Test
    void aSimulatedBatchNeverBlocksRestoreLastOnHardware() throws Exception {
        Path dev = fixtureCpus(0);
        Path state = tmp.resolve("state");
        Path hwJournal = state.resolve(MsrJournal.FILE);
        Files.createDirectories(state);
        // the line as an earlier hwtool wrote it for a --profile skylake run
        Files.writeString(hwJournal, "{\"time\":\"2026-01-01T00:00:00Z\",\"batch\":1,\"kind\":\"wrmsr\",\"rollback\":false,"
                + "\"undoes\":null,\"backend\":\"sim:skylake\",\"cpu\":0,\"msr\":\"0x000001d9\",\"name\":\"IA32_DEBUGCTL\","
                + "\"old\":\"0x0000000000000000\",\"new\":\"0x0000000000000002\"}\n");
        String sim = "--backend sim --profile skylake";
        Proc p = inMountNamespace(dev, state, String.join("\n",
                "set +e",
                "eval \"$HW wrmsr --backend hw IA32_DEBUGCTL 1\"; echo \"hw write: exit $?\"",
                "eval \"$HW wrmsr " + sim + " IA32_DEBUGCTL 0x2\"; echo \"sim write: exit $?\"",
                "eval \"$HW msr restore --last --backend hw\"; echo \"hw restore: exit $?\"",
                "eval \"$HW msr restore --last --backend hw\"; echo \"hw again: exit $?\"",
                "eval \"$HW msr restore --last --force " + sim + "\"; echo \"sim restore: exit $?\""));
        String out = p.out();
        assertEquals(0, p.exit(), p::toString);
        assertTrue(out.contains("hw write: exit 0\n"), p::toString);
        assertTrue(out.contains("sim write: exit 0\n"), p::toString);
        assertTrue(out.contains("undid batch 2 (wrmsr at ") && out.contains("hw restore: exit 0\n"),
                "the hardware batch, not the simulated one on top of it: " + p);
        assertTrue(out.contains("hw again: exit 3\n"), p::toString);
        assertTrue(p.err().contains("hwtool: nothing to undo: no write batch in " + hwJournal + " is left to undo"),
                "the earlier hwtool's simulated batch is passed over: " + p);
        assertTrue(out.contains("undid batch 1 (wrmsr at ") && out.contains("sim restore: exit 0\n"), p::toString);
        assertEquals(0, debugctl(dev, 0), "the hardware write was undone on the hardware");

        List<Map<String, Object>> hw = journalAt(hwJournal);
        assertEquals(List.of("sim:skylake", "hw", "hw"), hw.stream().map(e -> e.get("backend")).toList(),
                "only the earlier hwtool's line is simulated: " + hw);
        List<Map<String, Object>> simulated = journal(state);
        assertEquals(List.of("wrmsr", "undo"), simulated.stream().map(e -> e.get("kind")).toList(), simulated.toString());
        assertTrue(simulated.stream().allMatch(e -> "sim:skylake".equals(e.get("backend"))), simulated.toString());
    }
}
