package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code hwtool record} and {@code hwtool report}: perf's precision modifiers, real cpu-clock
 * samples of a gcc-built program on this kernel (checked against perf report on the same file),
 * the PEBS refusal with caps' reason, and the simulator's sampling.
 */
class SampleRecordTest {


    @TempDir
    Path dir;

    @Test
    void perfsPrecisionModifiersInAnyOrder() {
        EventSpec pp = EventSpec.parse("cycles:pp");
        assertEquals(2, pp.precise());
        assertFalse(pp.modifiersGivePrivilege());
        EventSpec upp = EventSpec.parse("instructions:pup");
        assertEquals(2, upp.precise());
        assertTrue(upp.userOnly());
        assertTrue(upp.modifiersGivePrivilege());
        assertEquals(3, EventSpec.parse("r01c2:ppp").precise());
        assertEquals(0, EventSpec.parse("cycles:u").precise());
        HwException four = assertThrows(HwException.class, () -> EventSpec.parse("cycles:pppp"));
        assertEquals(Cause.BAD_INPUT, four.cause());
        assertTrue(four.getMessage().contains("at most three p modifiers"), four.getMessage());
        HwException bad = assertThrows(HwException.class, () -> EventSpec.parse("cycles:px"));
        assertTrue(bad.getMessage().contains("is not u (user), k (kernel) or p, pp, ppp"), bad.getMessage());
    }

    /** A program that spends nearly all its time in one function, named spin. */
    private Path spinner() throws Exception {
        Require.tool("/usr/bin/gcc");
        Path src = dir.resolve("spin.c");
        Files.writeString(src, """
                #include <stdlib.h>
                __attribute__((noinline)) unsigned long spin(unsigned long n) {
                    volatile unsigned long x = 0;
                    for (unsigned long i = 0; i < n; i++) x += i * 7;
                    return x;
                }
                int main(int argc, char **argv) { return (int) (spin(strtoul(argv[1], 0, 10)) & 1); }
                """);
        Path exe = dir.resolve("spin");
        Process p = new ProcessBuilder("/usr/bin/gcc", "-O1", "-o", exe.toString(), src.toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS) && p.exitValue() == 0, out);
        return exe;
    }

    @Test
    void cpuClockSamplesOfARealProgramNameItsHotFunctionAsPerfReportDoes() throws Exception {
        Path exe = spinner();
        Path data = dir.resolve("spin.data");
        Run r = Run.of("record", "-e", "cpu-clock", "-c", "200000", "-o", data.toString(), "--", exe.toString(),
                "300000000");
        assertTrue(r.exit() == 0 || r.exit() == 1, r.toString()); // the program's own status: x & 1
        assertTrue(r.err().contains("hwtool: record: ") && r.err().contains("written to " + data), r.toString());
        Run report = Run.of("report", data.toString(), "--json", "-n", "3");
        assertEquals(0, report.exit(), report.toString());
        List<String> lines = report.out().lines().toList();
        Map<String, Object> head = JSON.std.mapFrom(lines.getFirst());
        assertEquals("samples", head.get("report"));
        assertEquals(false, head.get("simulated"));
        assertEquals(List.of("cpu-clock:u"), head.get("events"));
        long samples = ((Number) head.get("samples")).longValue();
        assertTrue(samples > 100, "a 0.2 ms period over a long spin gives hundreds of samples: " + head);
        Map<String, Object> top = JSON.std.mapFrom(lines.get(1));
        assertEquals("spin", top.get("name"), report.out());
        assertTrue(((Number) top.get("share")).doubleValue() > 0.5, report.out());

        // perf report reads the same file and names the same hottest symbol
        Require.tool("/usr/bin/perf");
        Process p = new ProcessBuilder("/usr/bin/perf", "report", "-i", data.toString(), "--stdio", "--sort", "sym",
                "-F", "overhead,sym").redirectErrorStream(false).start();
        String perf = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "perf report did not finish");
        // the heaviest row (perf 6.1 with -F does not always print rows heaviest first)
        String heaviest = perf.lines().filter(l -> l.strip().matches("[0-9.]+%.*"))
                .max(java.util.Comparator.comparingDouble(l -> Double.parseDouble(l.strip().split("%")[0])))
                .orElse("");
        assertTrue(heaviest.contains("spin"), "perf report's heaviest row: " + heaviest + "\n" + perf);
    }

    /**
     * {@code hwtool report} of a file perf recorded (kernel samples too where this process may take
     * them): the same rows as {@code perf report --sort dso,sym -n}, each its samples, Shared Object
     * and "[level] symbol"; the text has perf's two columns.
     */
    @Test
    void reportOfAPerfRecordingHasPerfReportsRowsAndNames() throws Exception {
        Path exe = spinner();
        Require.tool("/usr/bin/perf");
        Preconditions.perfCountsOwnProcesses();
        Path data = dir.resolve("perf.data");
        // two processes, on whichever CPUs they land: each CPU's ring is written in turn, so a
        // process's COMM and MMAP2 may follow samples of it in the file; perf reads in time order,
        // round by round (util/ordered-events.c), and so must hwtool to name them as perf does
        String twice = exe + " 100000000 & " + exe + " 100000000; wait";
        perf("record", "-N", "-q", "-e", "cpu-clock", "-c", "200000", "-o", data.toString(), "--", "/bin/sh", "-c", twice);
        Map<String, Long> perfRows = new java.util.TreeMap<>();
        for (String line : perf("report", "-i", data.toString(), "--stdio", "-q", "-n", "--sort", "dso,sym").split("\n")) {
            String[] f = line.strip().split("\\s+", 3);
            if (f.length == 3 && f[0].endsWith("%")) {
                perfRows.merge(f[2].replaceAll("\\s+", " "), Long.parseLong(f[1]), Long::sum);
            }
        }
        Run json = Run.of("report", data.toString(), "--json", "-n", "0");
        assertEquals(0, json.exit(), json.toString());
        Map<String, Long> ours = new java.util.TreeMap<>();
        for (String line : json.out().lines().skip(1).toList()) {
            Map<String, Object> row = JSON.std.mapFrom(line);
            ours.merge(row.get("dso") + " [" + row.get("level") + "] " + row.get("name"), ((Number) row.get("samples")).longValue(),
                    Long::sum);
        }
        assertEquals(perfRows, ours);
        assertTrue(ours.getOrDefault("spin [.] spin", 0L) > 100, ours.toString());
        Run text = Run.of("report", data.toString(), "-n", "3");
        assertEquals(0, text.exit(), text.toString());
        assertTrue(text.out().lines().anyMatch(l -> l.matches("# Overhead +Samples +Exact  Shared Object +Symbol")), text.out());
        assertTrue(text.out().lines().anyMatch(l -> l.matches(" +[0-9.]+% +[0-9]+ +0  spin +\\[\\.] spin")), text.out());
    }

    /** perf, with HOME here: no build-id cache of other runs names what the file does not. */
    private String perf(String... args) throws Exception {
        List<String> argv = new java.util.ArrayList<>(List.of("/usr/bin/perf"));
        argv.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile()).redirectError(ProcessBuilder.Redirect.DISCARD);
        pb.environment().put("HOME", dir.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), argv + " did not finish");
        assertEquals(0, p.exitValue(), argv.toString());
        return out;
    }

    /**
     * perf reads a real recording in every mode with hwtool's count: perf report (default, --sort
     * keys, each row's sample count with -n summed), --header-only (the features perf record writes,
     * this host's CPU as /proc/cpuinfo names it) and perf script, one line per sample. The kernel's
     * PERF_RECORD_MMAP2 of the program (attr.mmap2, RecordingAttrs) names the program's dso.
     */
    @Test
    void perfReportsARealRecordingInEveryModeWithHwtoolsCount() throws Exception {
        Require.tool("/usr/bin/perf");
        Path exe = spinner();
        Path data = dir.resolve("modes.data");
        Run r = Run.of("record", "-e", "cpu-clock", "-c", "500000", "-o", data.toString(), "--", exe.toString(),
                "100000000");
        assertTrue(r.exit() == 0 || r.exit() == 1, r.toString());
        Run report = Run.of("report", data.toString(), "--json", "-n", "1");
        assertEquals(0, report.exit(), report.toString());
        long samples = ((Number) JSON.std.mapFrom(report.out().lines().findFirst().orElseThrow()).get("samples"))
                .longValue();
        assertTrue(samples > 10, report.toString());

        String header = perf(data, "report", "--header-only");
        String cpuinfo = Files.readString(Path.of("/proc/cpuinfo"));
        assertTrue(header.contains("# arch : x86_64\n"), header);
        assertTrue(header.contains("# cpuid : " + cpuinfoField(cpuinfo, "vendor_id") + "," + cpuinfoField(cpuinfo,
                "cpu family") + "," + cpuinfoField(cpuinfo, "model") + "," + cpuinfoField(cpuinfo, "stepping") + "\n"),
                header);
        assertTrue(header.contains("# total memory : "), header);
        assertTrue(header.contains("# sample duration : "), header);
        assertFalse(header.contains("# contains samples with branch stack"), header);

        for (List<String> mode : List.of(List.<String>of(), List.of("--sort", "dso"), List.of("--sort", "symbol"),
                List.of("--sort", "dso,sym"), List.of("--sort", "comm,pid"))) {
            List<String> args = new java.util.ArrayList<>(List.of("report", "--stdio", "-n"));
            args.addAll(mode);
            String out = perf(data, args.toArray(String[]::new));
            long perfSamples = out.lines().map(l -> ROW.matcher(l)).filter(java.util.regex.Matcher::find)
                    .mapToLong(m -> Long.parseLong(m.group(1))).sum();
            assertEquals(samples, perfSamples, "perf report " + mode + ":\n" + out);
        }
        assertTrue(perf(data, "report", "--stdio", "--sort", "dso").contains("spin"), "the program's MMAP2 names its dso");
        assertEquals(samples, perf(data, "script", "-F", "ip").lines().filter(l -> !l.isBlank()).count());
    }

    /** A perf report -n row: "    97.50%           390  spin ...". */
    private static final java.util.regex.Pattern ROW = java.util.regex.Pattern.compile("^\\s+[0-9.]+%\\s+(\\d+)\\s");

    private static String cpuinfoField(String cpuinfo, String name) {
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?m)^" + java.util.regex.Pattern.quote(name)
                + "\\s*: (.*)$").matcher(cpuinfo);
        assertTrue(m.find(), name);
        return m.group(1).strip();
    }

    /** perf's stdout; it must exit 0 (never a signal) within 120 s. */
    private String perf(Path data, String... args) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("/usr/bin/perf"));
        cmd.addAll(List.of(args));
        cmd.addAll(List.of("-i", data.toString()));
        Path out = dir.resolve("perf.out");
        Path err = dir.resolve("perf.err");
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly().waitFor();
            throw new AssertionError(cmd + " did not finish in 120 s");
        }
        assertEquals(0, p.exitValue(), () -> cmd + ": " + readQuietly(err));
        return Files.readString(out, StandardCharsets.UTF_8);
    }

    private static String readQuietly(Path f) {
        try {
            return Files.readString(f);
        } catch (IOException e) {
            return e.toString();
        }
    }

    @Test
    void preciseSamplingWithoutPebsIsRefusedWithCapsReasonAndNoFile() throws IOException {
        // A hardware fact, not a fixable one: a host with a core PMU skips, also in CI.
        Preconditions.hostLacks(Preconditions.Hardware.CORE_PMU);
        Path out = dir.resolve("p.data");
        Run r = Run.of("record", "-e", "cycles:pp", "-o", out.toString(), "--", "true");
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        assertFalse(Files.exists(out));
        Run caps = Run.of("caps", "--json");
        assertEquals(0, caps.exit(), caps.toString());
        Map<String, Object> json = JSON.std.mapFrom(caps.out());
        Map<?, ?> pebs = ((List<?>) json.get("verdicts")).stream().map(v -> (Map<?, ?>) v)
                .filter(v -> "pebs_perf".equals(v.get("facility"))).findFirst().orElseThrow();
        assertEquals(false, pebs.get("usable"), pebs.toString());
        Map<?, ?> probe = (Map<?, ?>) pebs.get("probe");
        assertTrue(r.err().contains((String) probe.get("detail")), "record fails with the probe's message: " + r
                + "\nprobe: " + probe);
        assertTrue(r.err().contains("no hardware PMU"), r.toString());
    }

    @Test
    void softwareEventsTakeNoPrecisionAndPmuEventsDoNotSample() {
        Run r = Run.of("record", "-e", "cpu-clock:p", "-o", dir.resolve("x").toString(), "--", "true");
        assertEquals(Cause.BAD_INPUT.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().contains("software events have no skid"), r.toString());
        Run pmu = Run.of("record", "-e", "msr/tsc/", "-o", dir.resolve("y").toString(), "--", "true");
        assertEquals(Cause.BAD_INPUT.exitCode(), pmu.exit(), pmu.toString());
        assertFalse(Files.exists(dir.resolve("x")) || Files.exists(dir.resolve("y")));
    }

    @Test
    void withoutEventItFallsBackToCpuClockWhereCyclesCannotBeSampled() {
        Preconditions.hostLacks(Preconditions.Hardware.CORE_PMU);
        Path out = dir.resolve("d.data");
        Run r = Run.of("record", "-o", out.toString(), "--", "true");
        assertEquals(0, r.exit(), r.toString());
        assertTrue(r.err().contains("sampling cpu-clock instead, as perf record does"), r.toString());
        Run report = Run.of("report", out.toString());
        assertEquals(0, report.exit(), report.toString());
        assertTrue(report.out().contains("# events:  cpu-clock:u"), report.out());
    }

    @Test
    void theSimulatorSamplesEveryPeriodInstructions() throws IOException {
        Path out = dir.resolve("sim.data");
        Run r = Run.of("record", "--backend", "sim", "--profile", "skylake", "-e", "instructions", "-c", "1009",
                "-o", out.toString(), "--", "loop", "iterations=2000");
        assertEquals(0, r.exit(), r.toString());
        Run report = Run.of("report", out.toString(), "--json", "-n", "0");
        assertEquals(0, report.exit(), report.toString());
        Map<String, Object> head = JSON.std.mapFrom(report.out().lines().findFirst().orElseThrow());
        assertEquals(true, head.get("simulated"));
        long samples = ((Number) head.get("samples")).longValue();
        long period = ((Number) head.get("period")).longValue();
        assertTrue(samples > 0, head.toString());
        assertEquals(samples * 1009, period, "every sample weighs its fixed period");
        long rows = report.out().lines().skip(1).mapToLong(l -> {
            try {
                return ((Number) JSON.std.mapFrom(l).get("samples")).longValue();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
        }).sum();
        assertEquals(samples, rows, "rows add up to the samples");
        assertTrue(report.out().lines().findFirst().orElseThrow().contains("simulated (profile skylake)"));
    }

    @Test
    void btsRecordingsBelongToBtsReport() throws IOException {
        Path out = dir.resolve("bts.data");
        Run r = Run.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", out.toString(), "--",
                "loop", "iterations=100");
        assertEquals(0, r.exit(), r.toString());
        Run report = Run.of("report", out.toString());
        assertEquals(Cause.BAD_INPUT.exitCode(), report.exit(), report.toString());
        assertTrue(report.err().contains("is not a sampling recording"), report.toString());
        assertEquals("", report.out());
    }

    /**
     * Precise sampling on the simulator: the recorder programs PEBS as ds.c does, so every sample
     * of branches:pp is one PEBS record, flagged exact, at a branch the workload retired; perf
     * script reads the same IPs back from the file.
     */
    @Test
    void simulatedPebsSamplesAreExactAndPerfScriptReadsThem() throws Exception {
        Path out = dir.resolve("pebs.data");
        Run r = Run.of("record", "--backend", "sim", "--profile", "skylake", "-e", "branches:pp", "-c", "97",
                "-o", out.toString(), "--", "loop", "iterations=3000", "seed=5");
        assertEquals(0, r.exit(), r.toString());
        Run report = Run.of("report", out.toString(), "--json", "--sort", "ip", "-n", "0");
        assertEquals(0, report.exit(), report.toString());
        List<String> lines = report.out().lines().toList();
        Map<String, Object> head = JSON.std.mapFrom(lines.getFirst());
        long samples = ((Number) head.get("samples")).longValue();
        assertTrue(samples > 10, head.toString());
        assertEquals(samples, ((Number) head.get("exact")).longValue(), "precise_ip 2 on PEBS format 3: all exact");
        assertEquals(List.of("branches:upp"), head.get("events"));
        java.util.Map<String, Long> ours = new java.util.TreeMap<>();
        for (String l : lines.subList(1, lines.size())) {
            Map<String, Object> row = JSON.std.mapFrom(l);
            ours.put(((String) row.get("ip")).toLowerCase(), ((Number) row.get("samples")).longValue());
        }
        Require.tool("/usr/bin/perf");
        Process p = new ProcessBuilder("/usr/bin/perf", "script", "-i", out.toString(), "-F", "ip").start();
        String perf = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "perf script did not finish");
        java.util.Map<String, Long> theirs = new java.util.TreeMap<>();
        perf.lines().map(String::strip).filter(l -> !l.isEmpty())
                .forEach(l -> theirs.merge("0x" + l.replaceFirst("^0+(?=.)", ""), 1L, Long::sum));
        assertEquals(ours, theirs, "perf script -F ip lists the same IPs, as often");
    }

    @Test
    void simulatedPrecisionAboveWhatTheCpuOffersIsRefused() {
        // Core 2: PEBS format 0 and an LBR, so x86_pmu_max_precise is 2
        Run r = Run.of("record", "--backend", "sim", "--profile", "core2", "-e", "instructions:ppp",
                "-o", dir.resolve("c2.data").toString(), "--", "loop", "iterations=10");
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r.toString());
        assertTrue(r.err().contains("precise_ip 3 is more than this CPU offers"), r.toString());
        Run amd = Run.of("record", "--backend", "sim", "--profile", "amd-epyc-kvm-guest", "-e", "instructions:p",
                "-o", dir.resolve("amd.data").toString(), "--", "loop", "iterations=10");
        assertEquals(Cause.UNSUPPORTED.exitCode(), amd.exit(), amd.toString());
        assertFalse(Files.exists(dir.resolve("c2.data")) || Files.exists(dir.resolve("amd.data")));
    }
}
