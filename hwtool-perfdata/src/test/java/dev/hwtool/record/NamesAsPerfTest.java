package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.report.HotSamples;
import dev.hwtool.report.SymbolizerSymbols;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * hwtool names samples as perf does, with perf report and perf script (the host's perf) as the
 * oracle on recordings perf makes here of gcc-built programs: 64-bit PIE, 64-bit non-PIE and 32-bit
 * (i686) PIE, each with a C function, a hand-written assembly function typed but without .size,
 * a bare assembly label (neither .type nor .size), and a loop of system calls for kernel samples.
 * Per sample, the symbol and DSO equal {@code perf script -F ip,sym,dso}'s; per row, the samples,
 * Shared Object and "[level] symbol" equal {@code perf report --sort dso,sym -n}'s; with and
 * without kernel symbols (perf's {@code --kallsyms} of an empty file).
 */
class NamesAsPerfTest {

    private static final String PROG_C = """
            #include <stdlib.h>
            #include <unistd.h>
            volatile unsigned long sink;
            void asm_nosize(unsigned long n);
            void asm_label(unsigned long n);
            __attribute__((noinline)) void c_spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += i * 7; }
            __attribute__((noinline)) void sys_spin(unsigned long n) { for (unsigned long i = 0; i < n; i++) sink += getppid(); }
            int main(int argc, char **argv) {
                unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 1000;
                c_spin(n); asm_nosize(n); asm_label(n); sys_spin(n / 100);
                return 0;
            }
            """;

    /** i386 System V: the argument on the stack. asm_nosize has .type but no .size; asm_label neither. */
    private static final String SPIN_32 = """
                .text
                .globl asm_nosize
                .type asm_nosize, @function
            asm_nosize:
                mov 4(%esp), %ecx
            1:  nop
                nop
                dec %ecx
                jnz 1b
                ret
                .globl asm_label
            asm_label:
                mov 4(%esp), %ecx
            2:  nop
                dec %ecx
                jnz 2b
                ret
                .section .note.GNU-stack,"",@progbits
            """;

    private static final String SPIN_64 = SPIN_32.replace("mov 4(%esp), %ecx", "mov %rdi, %rcx").replace("%ecx", "%rcx");

    @TempDir
    Path dir;

    @BeforeEach
    void perfEventOpenAllowed() {
        Preconditions.perfCountsOwnProcesses();
        Tools.require(Tools.PERF);
        Tools.require(Tools.GCC);
    }

    @Test
    void pie64() throws Exception {
        check(build("pie64", SPIN_64));
    }

    @Test
    void nonPie64() throws Exception {
        check(build("exec64", SPIN_64, "-no-pie", "-fno-pie"));
    }

    @Test
    void i686() throws Exception {
        Path exe = build("pie32", SPIN_32, "-m32");
        // a kernel without IA-32 execution refuses it (ENOEXEC): a host fact, probed by running one
        Preconditions.hostHas(Preconditions.Hardware.IA32_EXECUTION);
        check(exe);
    }

    private Path build(String name, String asm, String... flags) throws Exception {
        Files.writeString(dir.resolve("prog.c"), PROG_C);
        Files.writeString(dir.resolve(name + ".S"), asm);
        List<String> argv = new ArrayList<>(List.of(Tools.GCC, "-O1", "-o", name, "prog.c", name + ".S"));
        argv.addAll(List.of(flags));
        Result r = exec(argv);
        // -m32 needs the i386 C library (Debian's gcc-multilib, which .ci/run installs)
        Preconditions.that(r.code == 0, String.join(" ", argv) + " failed (for -m32: apt-get install gcc-multilib): " + r.err);
        return dir.resolve(name);
    }

    private void check(Path exe) throws Exception {
        Path data = dir.resolve(exe.getFileName() + ".data");
        // Not pinned: perf writes each CPU's ring in turn, so once the program has run on two CPUs a
        // sample may precede its process's MMAP2 in the file; perf reads each round in time order
        // (util/ordered-events.c), as PerfDataFile does.
        perf("record", "-N", "-q", "-e", "cpu-clock", "-c", "100000", "-o", data.toString(), "--", exe.toString(), "60000000");
        Path empty = Files.writeString(dir.resolve("no-kallsyms"), "");
        List<PerfRecord> records;
        try (PerfDataFile f = PerfDataFile.open(data)) {
            records = f.records();
        }
        // without kernel symbols: kernel samples are "[k] 0x<16 hex digits>" in [kernel.kallsyms]
        Map<String, Long> bare = compare(data, records, new Symbolizer(empty), List.of("--kallsyms=" + empty));
        Map<String, Long> named;
        try (Symbolizer s = new Symbolizer()) {
            named = compare(data, records, s, List.of());
        }
        String prog = exe.getFileName().toString();
        for (String f : List.of("c_spin", "asm_nosize", "asm_label")) {
            assertTrue(named.getOrDefault(prog + " [.] " + f, 0L) > 50, f + " is named, with its samples: " + named);
        }
        if (Preconditions.perfCountsKernel()) {
            assertTrue(bare.keySet().stream().anyMatch(k -> k.matches("\\[kernel\\.kallsyms] \\[k] 0xffff[0-9a-f]{12}")),
                    "kernel samples without kallsyms are bare addresses in [kernel.kallsyms]: " + bare);
            Preconditions.privileged(kallsymsReadable(), "/proc/kallsyms shows addresses to root only (kptr_restrict)");
            assertTrue(named.keySet().stream().anyMatch(k -> k.startsWith("[kernel.kallsyms] [k] ") && !k.contains(" 0x")),
                    "kernel samples named from kallsyms: " + named);
        }
    }

    /**
     * Our names for every sample against perf script's, and our report rows against perf report's;
     * returns the rows ("dso [l] symbol" to samples).
     */
    private Map<String, Long> compare(Path data, List<PerfRecord> records, Symbolizer symbolizer, List<String> perfOptions)
            throws Exception {
        List<String> script = new ArrayList<>(List.of("script", "-i", data.toString(), "-F", "ip,sym,dso"));
        script.addAll(perfOptions);
        Map<String, Long> perfScript = new TreeMap<>();
        for (String line : perf(script.toArray(String[]::new)).split("\n")) {
            String l = line.strip();
            if (!l.isEmpty()) {
                perfScript.merge(l.substring(l.indexOf(' ') + 1).replaceAll("\\s+", " "), 1L, Long::sum);
            }
        }
        Map<String, Long> ours = new TreeMap<>();
        HotSamples hot = new HotSamples();
        try (symbolizer) {
            for (PerfRecord r : records) {
                symbolizer.add(r);
                if (r instanceof PerfRecord.Sample s) {
                    CodeLocation l = symbolizer.locate(s.pid(), s.ip(), s.cpumode());
                    ours.merge(l.scriptSymbol() + " (" + l.scriptDso() + ")", 1L, Long::sum);
                    hot.add(s);
                }
            }
            assertEquals(perfScript, ours, "perf script -F ip,sym,dso " + perfOptions);

            List<String> report = new ArrayList<>(List.of("report", "-i", data.toString(), "--stdio", "-q", "-n",
                    "--sort", "dso,sym"));
            report.addAll(perfOptions);
            Map<String, Long> perfRows = new TreeMap<>();
            for (String line : perf(report.toArray(String[]::new)).split("\n")) {
                String[] f = line.strip().split("\\s+", 3);
                if (f.length == 3 && f[0].endsWith("%")) {
                    perfRows.merge(f[2].replaceAll("\\s+", " "), Long.parseLong(f[1]), Long::sum);
                }
            }
            Map<String, Long> rows = new TreeMap<>();
            for (HotSamples.Row row : hot.rows(new SymbolizerSymbols(symbolizer), HotSamples.By.SYMBOL)) {
                rows.merge(row.dso() + " [" + row.level() + "] " + row.name(), row.samples(), Long::sum);
            }
            assertEquals(perfRows, rows, "perf report --sort dso,sym " + perfOptions);
            return rows;
        }
    }

    private static boolean kallsymsReadable() throws IOException {
        try (var lines = Files.lines(Path.of("/proc/kallsyms"))) {
            return lines.limit(50).anyMatch(l -> !l.startsWith("0000000000000000"));
        }
    }

    private record Result(int code, String out, String err) {
    }

    /** perf with HOME in the test's directory: no build-id cache of other runs can name what the files do not. */
    private String perf(String... args) throws Exception {
        List<String> argv = new ArrayList<>(List.of(Tools.PERF));
        argv.addAll(List.of(args));
        Result r = exec(argv);
        assertEquals(0, r.code, argv + ": " + r.err);
        return r.out;
    }

    private Result exec(List<String> argv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile());
        pb.environment().put("HOME", dir.toString());
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        Process p = pb.redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(argv + " did not finish");
        }
        return new Result(p.exitValue(), out, Files.readString(err));
    }
}
