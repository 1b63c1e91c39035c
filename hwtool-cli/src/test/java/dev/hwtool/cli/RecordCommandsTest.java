package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.caps.Probe;
import dev.hwtool.ffm.FfmBinding;
import dev.hwtool.linux.perf.PerfEvents;
import dev.hwtool.linux.perf.PerfProbe;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** hwtool lbr/bts record on this machine, as the library's probe says it can, and every refusal before recording. */
class RecordCommandsTest {

    @TempDir
    Path dir;

    /** Files in dir: a failed record leaves none, not even its temporary file. */
    List<String> files() throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).sorted().toList();
        }
    }

    static void oneLine(Run r) {
        assertFalse(r.err().contains("\tat "), "no stack trace: " + r);
        assertTrue(r.err().lines().allMatch(l -> l.startsWith("hwtool: ")), "one-line errors: " + r);
    }

    /** What the library's probe says about LBR and BTS on this host: the CLI must do what it says. */
    static Probe probe(String facility) {
        try (PerfEvents perf = new PerfEvents(new FfmBinding())) {
            PerfProbe p = new PerfProbe(perf);
            return facility.equals("lbr") ? p.lbr(Privilege.USER) : p.bts();
        }
    }

    /**
     * Where the probe says the facility works, {@code lbr|bts record} records the command and its
     * report reads the file back; where it does not, the record fails with the probe's cause and
     * leaves no file (on this build machine: no hardware PMU at all).
     */
    void recordsAsTheProbeSays(String facility) throws IOException {
        Probe p = probe(facility);
        Path out = dir.resolve("x.data");
        Run r = Run.of(facility, "record", "-o", out.toString(), "--", "/bin/sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done");
        if (p.usable()) {
            assertEquals(0, r.exit(), r.toString());
            assertEquals(List.of("x.data"), files());
            Run report = Run.of(facility, "report", "--json", out.toString());
            assertEquals(0, report.exit(), report.toString());
            assertTrue(report.out().startsWith("{"), report.out());
            return;
        }
        HwException expected = p.failure().orElseThrow();
        assertEquals(expected.cause().exitCode(), r.exit(), r.toString());
        assertTrue(r.err().contains(expected.getMessage()), "the probe's cause: " + expected.getMessage() + "\n" + r);
        if (!Preconditions.Hardware.CORE_PMU.present()) {
            assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
            assertTrue(r.err().contains("no hardware PMU"), r.toString());
        }
        assertTrue(r.err().contains("hwtool: fix: "), r.toString());
        oneLine(r);
        assertEquals(List.of(), files());
    }

    @Test
    void lbrRecordRecordsOrFailsWithTheProbesCauseAndLeavesNoFile() throws IOException {
        recordsAsTheProbeSays("lbr");
    }

    @Test
    void btsRecordRecordsOrFailsLikewise() throws IOException {
        recordsAsTheProbeSays("bts");
    }

    @Test
    void anExistingRecordingSurvivesAFailedRecordOrIsReplacedByAGoodOne() throws IOException {
        Path out = dir.resolve("hwtool.data");
        Files.writeString(out, "previous");
        Run r = Run.of("lbr", "record", "-o", out.toString(), "--", "true");
        assertEquals(List.of("hwtool.data"), files());
        if (probe("lbr").usable()) {
            assertEquals(0, r.exit(), r.toString());
            assertTrue(Files.readString(out, java.nio.charset.StandardCharsets.ISO_8859_1).startsWith("PERFILE2"), "a perf.data replaced it");
        } else {
            assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
            assertEquals("previous", Files.readString(out));
        }
    }

    @Test
    void aCommandThatCannotRunIs127Or126BeforeAnythingIsOpened() throws IOException {
        Run missing = Run.of("lbr", "record", "-o", dir.resolve("a").toString(), "--", "no-such-command-hwtool");
        assertEquals(CommandPath.NOT_FOUND, missing.exit(), missing.toString());
        assertTrue(missing.err().contains("lbr record: no-such-command-hwtool: command not found"), missing.toString());
        Path script = Files.createFile(dir.resolve("script"), PosixFilePermissions.asFileAttribute(
                PosixFilePermissions.fromString("rw-r--r--")));
        Run notExec = Run.of("bts", "record", "-o", dir.resolve("b").toString(), "--", script.toString());
        assertEquals(CommandPath.NOT_EXECUTABLE, notExec.exit(), notExec.toString());
        assertEquals(List.of("script"), files());
    }

    @Test
    void badOptionsAreUsageErrors() throws IOException {
        String out = dir.resolve("x").toString();
        for (List<String> args : List.of(
                List.of("lbr", "record", "--filter", "jumps", "-o", out, "--", "true"),
                List.of("lbr", "record", "-c", "0", "-o", out, "--", "true"),
                List.of("lbr", "record", "-c", "-5", "-o", out, "--", "true"),
                List.of("lbr", "record", "--backend", "sim", "-o", out, "--", "loop"),
                List.of("lbr", "report", "--sort", "period", out),
                List.of("lbr", "report", "--limit", "-1", out),
                List.of("bts", "report", "--paths", "0", out),
                List.of("bts", "report", "--paths", "4097", out),
                List.of("bts", "report", "--paths", "2147483647", out),
                List.of("bts", "report", "--limit", "-2", out),
                List.of("lbr", "record", "-o", out))) {
            Run r = Run.of(args.toArray(String[]::new));
            assertEquals(ExitCodes.USAGE, r.exit(), args + ": " + r);
            assertFalse(r.err().contains("\tat "), r.toString());
        }
        assertEquals(List.of(), files());
    }

    @Test
    void aDirectoryAsOutputCannotBeWritten() throws IOException {
        Files.createDirectory(dir.resolve("d"));
        Run r = Run.of("lbr", "record", "-o", dir.resolve("d").toString(), "--", "true");
        assertEquals(Cause.OS_ERROR.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().startsWith("hwtool: cannot write " + dir.resolve("d") + ": Is a directory\n"), r.toString());
        oneLine(r);
    }

    @Test
    void reportsOfMissingOrForeignFilesAreBadInput() throws IOException {
        Path none = dir.resolve("none.data");
        Path text = Files.writeString(dir.resolve("text.data"), "not a recording\n");
        for (String report : List.of("lbr", "bts")) {
            Run missing = Run.of(report, "report", none.toString());
            assertEquals(Cause.BAD_INPUT.exitCode(), missing.exit(), missing.toString());
            assertTrue(missing.err().contains("no such file"), missing.toString());
            oneLine(missing);
            Run notPerf = Run.of(report, "report", text.toString());
            assertEquals(Cause.BAD_INPUT.exitCode(), notPerf.exit(), notPerf.toString());
            assertTrue(notPerf.err().contains("not a perf.data file") || notPerf.err().contains("truncated"),
                    notPerf.toString());
            oneLine(notPerf);
            assertEquals("", notPerf.out());
        }
    }

    /** perf record -e cpu-clock: a real perf.data without branch records is refused, naming what it holds. */
    @Test
    void aPerfCpuClockRecordingIsRefusedByBothReports() throws Exception {
        Require.tool("/usr/bin/perf");
        Path data = dir.resolve("perf.data");
        Process p = new ProcessBuilder("/usr/bin/perf", "record", "-q", "-e", "cpu-clock", "-o", data.toString(), "--",
                "ls", "/").redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        assertEquals(0, p.waitFor(), "perf record");
        for (String report : List.of("lbr", "bts")) {
            Run r = Run.of(report, "report", "--json", data.toString());
            assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
            assertTrue(r.err().contains("holds samples without branch records: cpu-clock"), r.toString());
            assertTrue(r.err().contains("recorded by perf record"), r.toString());
            assertEquals("", r.out());
            oneLine(r);
        }
    }
}
