package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import dev.hwtool.testing.Preconditions;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.linux.LinuxPlatform;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** hwtool stat end to end, in-process, on real commands and this machine's perf_event_open. */
class StatTest {

    /**
     * 4 × 16 MiB through one fresh 16 MiB buffer: about 4096 first-touch page faults with 4 KiB
     * pages, but as few as 8 where transparent huge pages are "always" (see {@link #DD_FEWEST_FAULTS}).
     */
    static final List<String> DD = List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=16M", "count=4", "status=none");
    static final long DD_BUFFER = 16L << 20;
    /** The fewest faults that can fill dd's buffer in this host's THP mode (Preconditions.Thp). */
    static final long DD_FEWEST_FAULTS = Preconditions.Thp.host().fewestFaults(DD_BUFFER);

    /** Whether the host has a core PMU: cpu, or cpu_core/cpu_atom on hybrid parts. */
    static boolean corePmu() {
        return Preconditions.corePmu().isPresent();
    }

    /** hwtool stat on the hardware backend, where this host lets a process count its own children. */
    static Run stat(List<String> opts, List<String> cmd) {
        Preconditions.perfCountsOwnProcesses();
        String[] args = new String[1 + opts.size() + 1 + cmd.size()];
        args[0] = "stat";
        int i = 1;
        for (String o : opts) {
            args[i++] = o;
        }
        args[i++] = "--";
        for (String c : cmd) {
            args[i++] = c;
        }
        return Run.of(args);
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> json(Run r) throws IOException {
        return JSON.std.mapFrom(r.err());
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> event(Map<String, Object> report, String name) {
        for (Object o : (List<Object>) report.get("events")) {
            Map<String, Object> e = (Map<String, Object>) o;
            if (e.get("event").equals(name) || e.get("event").equals(name + ":u")) {
                return e;
            }
        }
        throw new AssertionError("no event " + name + " in " + report);
    }

    static long count(Map<String, Object> report, String name) {
        Object c = event(report, name).get("count");
        assertNotNull(c, name + " counted: " + report);
        return ((Number) c).longValue();
    }

    @Test
    void softwareEventsOfAMemoryTouchingCommand() throws IOException {
        Preconditions.perfCountsOwnProcesses();
        Run r = stat(List.of("--json", "-e", "task-clock,page-faults,context-switches"), DD);
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = json(r);
        assertTrue(count(m, "task-clock") > 0, r.toString());
        long faults = count(m, "page-faults");
        if (Preconditions.perfCountsKernel()) {
            // dd's read() fills the fresh buffer from kernel mode: its faults are counted here.
            assertTrue(faults >= DD_FEWEST_FAULTS && faults < 20_000, "page-faults of touching 16 MiB (THP "
                    + Preconditions.Thp.host() + ", at least " + DD_FEWEST_FAULTS + "): " + faults);
        } else {
            // User mode only (perf_event_paranoid 2, no CAP_PERFMON): the buffer's faults, taken in
            // read(), are not counted, and the event says so by its ":u".
            assertEquals("page-faults:u", event(m, "page-faults").get("event"), m.toString());
            assertTrue(faults > 0 && faults < DD_FEWEST_FAULTS + 20_000, "dd's own user-mode faults: " + faults);
        }
        // Counted (count() fails without a number), not bounded: how often a loaded machine
        // preempts dd is that machine's business. StatVsPerfTest holds a lower bound.
        count(m, "context-switches");
        assertEquals("ns", event(m, "task-clock").get("unit"));
        assertEquals("", event(m, "page-faults").get("unit"));
    }

    @Test
    void jsonShape() throws IOException {
        Run r = stat(List.of("--json", "-e", "task-clock,cycles"), List.of("true"));
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = json(r);
        assertEquals(List.of("backend", "command", "exit_code", "elapsed_ns", "events"), List.copyOf(m.keySet()));
        assertEquals("hardware", m.get("backend"));
        assertEquals(List.of("true"), m.get("command"));
        assertEquals(0, ((Number) m.get("exit_code")).intValue());
        assertTrue(((Number) m.get("elapsed_ns")).longValue() > 0);
        Map<String, Object> tc = event(m, "task-clock");
        assertEquals(List.of("event", "supported", "count", "unit", "time_enabled_ns", "time_running_ns", "scaled",
                "error", "remedy"), List.copyOf(tc.keySet()));
        assertEquals(true, tc.get("supported"));
        assertEquals(tc.get("count"), tc.get("scaled"), "software events are not multiplexed");
        assertEquals(tc.get("time_enabled_ns"), tc.get("time_running_ns"));
        assertNull(tc.get("error"));
    }

    @Test
    void childrenAreCounted() throws IOException {
        // The children's faults are dd's read() filling their buffers, in kernel mode.
        Preconditions.perfParanoidAtMost(1, "counting the kernel-mode page faults of dd's read()");
        String dd = String.join(" ", DD);
        Run r = stat(List.of("--json", "-e", "page-faults"), List.of("sh", "-c", dd + "; " + dd + "; " + dd));
        assertEquals(0, r.exit(), r.toString());
        long faults = count(json(r), "page-faults");
        assertTrue(faults >= 3 * DD_FEWEST_FAULTS, "three children each touching 16 MiB (THP " + Preconditions.Thp.host()
                + "): " + faults);
    }

    @Test
    void hardwareAndRawEventsWithoutAPmuAreNotSupportedRowsWithTheReason() throws IOException {
        Run r = stat(List.of("--json", "-e", "cycles,instructions,r00c0,task-clock"), List.of("true"));
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = json(r);
        for (String hw : List.of("cycles", "instructions", "r00c0")) {
            Map<String, Object> e = event(m, hw);
            if (corePmu()) {
                assertEquals(true, e.get("supported"), hw + " on a machine with a core PMU: " + e);
            } else {
                // The kernel asks perf_allow_kernel (exclude_kernel is 0 here) before it looks for
                // the PMU, so only a process that may count kernel mode hears ENOENT.
                Preconditions.perfParanoidAtMost(1, "hearing 'no hardware PMU' for a hardware event that counts kernel mode");
                assertEquals(false, e.get("supported"), hw + ": " + e);
                assertNull(e.get("count"));
                assertTrue(((String) e.get("error")).contains("no hardware PMU"), hw + ": " + e.get("error"));
                assertNotNull(e.get("remedy"), hw);
            }
        }
        assertTrue(count(m, "task-clock") > 0);
    }

    @Test
    void textTableShowsNotSupportedAndTheReasonOnce() {
        Preconditions.hostLacks(Preconditions.Hardware.CORE_PMU);
        Preconditions.perfParanoidAtMost(1, "hearing 'no hardware PMU' for a hardware event that counts kernel mode");
        Run r = stat(List.of("-e", "task-clock,page-faults,cycles,instructions"), List.of("true"));
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains(" Performance counter stats for 'true':"), r.err());
        assertTrue(r.err().matches("(?s).*\\n +[0-9]+\\.[0-9]{2} msec task-clock +# +[0-9.]+ CPUs utilized\\n.*"), r.err());
        assertTrue(r.err().matches("(?s).*\\n +[0-9]+      page-faults +# +[0-9.]+ [KMG]?/sec\\n.*"), r.err());
        assertTrue(r.err().contains("   <not supported>      cycles\n"), r.err());
        assertTrue(r.err().matches("(?s).*\\n +[0-9]+\\.[0-9]{9} seconds time elapsed\\n.*"), r.err());
        assertTrue(r.err().contains("\nhwtool: cycles, instructions: ENOENT (No such file or directory): no hardware PMU: "), r.err());
        assertEquals(1, r.err().split("hwtool: fix: ", -1).length - 1, "one remedy line: " + r.err());
        assertEquals("", r.out());
    }

    @Test
    void csvLikePerfX() {
        Run r = stat(List.of("-x", ",", "-e", "task-clock,page-faults,r00c0"), List.of("true"));
        assertEquals(0, r.exit(), r.toString());
        List<String> lines = r.err().lines().toList();
        assertEquals(3, lines.size(), r.err());
        for (String l : lines) {
            assertEquals(7, l.split(",", -1).length, l);
        }
        // ":u" where this process may count user mode only, as perf stat prints it.
        String u = Preconditions.perfCountsKernel() ? "" : ":u";
        assertTrue(lines.get(0).matches("[0-9]+\\.[0-9]{2},msec,task-clock" + u + ",[0-9]+,100\\.00,[0-9.]+,CPUs utilized"), lines.get(0));
        assertTrue(lines.get(1).matches("[0-9]+,,page-faults" + u + ",[0-9]+,100\\.00,[0-9.]+,[KMG]?/sec"), lines.get(1));
        if (!corePmu()) {
            assertEquals("<not supported>,,r00c0,0,100.00,,", lines.get(2));
        }
    }

    @Test
    void everyEventUnsupportedFailsWithTheCauseAndRunsNothing(@TempDir Path dir) {
        Preconditions.hostLacks(Preconditions.Hardware.CORE_PMU);
        Preconditions.perfParanoidAtMost(1, "hearing 'no hardware PMU' for a hardware event that counts kernel mode");
        Path marker = dir.resolve("ran");
        Run r = stat(List.of("-e", "cycles,branches"), List.of("touch", marker.toString()));
        assertEquals(11, r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: no event could be counted; cycles: "), r.err());
        assertTrue(r.err().contains("no hardware PMU"), r.err());
        assertFalse(Files.exists(marker), "the command was not run");
    }

    @Test
    void msrTscCountsAtTheTscRate() throws Exception {
        Require.that(Files.exists(Path.of("/sys/bus/event_source/devices/msr/events/tsc")),
                "the msr PMU with its tsc event (arch/x86/events/msr.c)");
        // It cannot exclude kernel mode (PERF_PMU_CAP_NO_EXCLUDE): perf_event_paranoid 1 or less.
        Preconditions.perfParanoidAtMost(1, "the msr PMU (it counts kernel mode too)");
        double ghz;
        try (LinuxPlatform p = LinuxPlatform.open()) {
            p.binding().rdtsc(); // the first call makes the stub: keep it out of the timed interval
            long n0 = System.nanoTime();
            long t0 = p.binding().rdtsc();
            Thread.sleep(200);
            long t1 = p.binding().rdtsc();
            ghz = (double) (t1 - t0) / (System.nanoTime() - n0);
        }
        Run r = stat(List.of("--json", "-e", "msr/tsc/,task-clock"),
                List.of("dd", "if=/dev/zero", "of=/dev/null", "bs=64K", "count=20000", "status=none"));
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = json(r);
        long tsc = count(m, "msr/tsc/");
        long taskNs = count(m, "task-clock");
        // A per-task msr/tsc/ counts while the task runs: TSC ticks ≈ task-clock × TSC rate.
        double ratio = tsc / (taskNs * ghz);
        assertTrue(ratio > 0.7 && ratio < 1.4, "msr/tsc/ " + tsc + " vs task-clock " + taskNs + " ns × " + ghz
                + " GHz: ratio " + ratio);
        long elapsed = ((Number) m.get("elapsed_ns")).longValue();
        assertTrue(tsc <= elapsed * ghz * 1.1 * 2, "no more ticks than the wall time on 2 CPUs allows");
    }

    @Test
    void exitCodeOfTheCommandAndOfItsSignal() throws IOException {
        Run r = stat(List.of("--json", "-e", "task-clock"), List.of("sh", "-c", "exit 7"));
        assertEquals(7, r.exit(), r.toString());
        assertEquals(7, ((Number) json(r).get("exit_code")).intValue());
        Run k = stat(List.of("-e", "task-clock"), List.of("sh", "-c", "kill -TERM $$"));
        assertEquals(128 + 15, k.exit(), k.toString());
        assertTrue(k.err().contains("task-clock"), "counts still reported: " + k);
    }

    @Test
    void commandNotFoundOrNotExecutable(@TempDir Path dir) throws IOException {
        Run r = stat(List.of(), List.of("no-such-command-hwtool"));
        assertEquals(127, r.exit(), r.toString());
        assertEquals("hwtool: stat: no-such-command-hwtool: command not found (not in PATH)\n", r.err());
        Path f = Files.writeString(dir.resolve("script"), "#!/bin/sh\n",
                java.nio.charset.StandardCharsets.UTF_8);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        Run n = stat(List.of(), List.of(f.toString()));
        assertEquals(126, n.exit(), n.toString());
        assertEquals(1, n.err().lines().count(), n.err());
        Run d = stat(List.of(), List.of(dir.toString()));
        assertEquals(126, d.exit(), d.toString());
    }

    @Test
    void badEventSyntaxIsExit3InOneLine() {
        for (String bad : List.of("no-such-event", "msr/tsc", "msr//", "task-clock:z", "cycles,,instructions", "r12g")) {
            Run r = stat(List.of("-e", bad), List.of("true"));
            assertEquals(3, r.exit(), bad + ": " + r);
            List<String> lines = r.err().lines().toList();
            assertTrue(lines.getFirst().startsWith("hwtool: "), r.err());
            assertTrue(lines.size() <= 2 && (lines.size() == 1 || lines.get(1).startsWith("hwtool: fix: ")), r.err());
        }
    }

    @Test
    void missingPmuOrPmuEventIsANotSupportedRow() throws IOException {
        Run r = stat(List.of("--json", "-e", "nosuchpmu/foo/,task-clock"), List.of("true"));
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> e = event(json(r), "nosuchpmu/foo/");
        assertEquals(false, e.get("supported"));
        assertTrue(((String) e.get("error")).contains("/sys/bus/event_source/devices/nosuchpmu"), e.toString());
    }

    @Test
    void optionsAfterTheCommandAreTheCommands() throws IOException {
        Run r = Run.of("stat", "--json", "-e", "task-clock", "sh", "-c", "exit 3", "-e");
        assertEquals(3, r.exit(), r.toString());
        assertEquals(List.of("sh", "-c", "exit 3", "-e"), json(r).get("command"));
    }

    @Test
    void userModeModifier() throws IOException {
        // Counting kernel mode (:k) needs perf_event_paranoid 1 or less (kernel/events/core.c, perf_allow_kernel).
        Preconditions.perfParanoidAtMost(1, "counting kernel-mode page faults (:k)");
        Run r = stat(List.of("--json", "-e", "page-faults:u,page-faults:k"), DD);
        assertEquals(0, r.exit(), r.toString());
        Map<String, Object> m = json(r);
        long user = count(m, "page-faults:u");
        long kernel = count(m, "page-faults:k");
        assertTrue(user > 0, m.toString());
        // dd's read() from /dev/zero touches the buffer from kernel mode: most faults are the kernel's.
        assertTrue(kernel >= DD_FEWEST_FAULTS * 15 / 16, "at least 15/16 of " + DD_FEWEST_FAULTS + " (THP "
                + Preconditions.Thp.host() + "): " + m);
    }

    @Test
    void outputFileAndDefaultEvents(@TempDir Path dir) throws IOException {
        Path out = dir.resolve("report.json");
        Run r = Run.of("stat", "--json", "-o", out.toString(), "true");
        assertEquals(0, r.exit(), r.toString());
        assertEquals("", r.err());
        Map<String, Object> m = JSON.std.mapFrom(Files.readString(out));
        List<String> names = ((List<?>) m.get("events")).stream().map(o -> (String) ((Map<?, ?>) o).get("event"))
                .map(s -> s.replace(":u", "")).toList();
        assertEquals(EventSpec.DEFAULT, names);
    }

    @Test
    void onTheSimulatorTheWordsAreAWorkloadNotACommand() {
        // counted on the simulator since SimEventCounter (SimRecordingTest); "true" is no workload spec
        Run r = Run.of("stat", "--backend", "sim", "--profile", "skylake", "-e", "task-clock", "true");
        assertEquals(3, r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: unknown workload"), r.err());
    }

    @Test
    void eventListSplitsOutsidePmuSlashes() {
        assertEquals(List.of("a", "cpu/event=1,umask=2/", "b"), EventSpec.split("a,cpu/event=1,umask=2/,b"));
        assertEquals(List.of("msr/tsc/", "r00c0"), EventSpec.split("msr/tsc/,r00c0"));
    }
}
