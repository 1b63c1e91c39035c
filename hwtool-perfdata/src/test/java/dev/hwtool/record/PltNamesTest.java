package dev.hwtool.record;

import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.RecordBytes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Addresses in the procedure linkage table are named {@code NAME@plt} as perf 6.1 names them
 * (symbol-elf.c dso__synthesize_plt_symbols), with perf script as the oracle: one sample every two
 * bytes over .plt and .plt.got (their bounds from readelf, not from hwtool's reader) of a program
 * Debian built ({@code /usr/bin/ls}) and of one gcc builds here, each mapped as the kernel maps a
 * PIE. The synthesized entries follow .rela.plt's order, so a reader that numbered them otherwise,
 * missed the PLT header, or named .plt.got (which perf 6.1 does not) disagrees at once.
 */
class PltNamesTest {

    private static final String PLT_C = """
            #include <stdio.h>
            #include <stdlib.h>
            #include <string.h>
            #include <unistd.h>
            int main(int argc, char **argv) {
                unsigned long n = argc > 1 ? strtoul(argv[1], 0, 10) : 3;
                for (unsigned long i = 0; i < n; i++) { printf("%lu %d %zu\\n", i, getppid(), strlen(argv[0])); }
                puts(getenv("HOME") ? "home" : "none");
                return 0;
            }
            """;

    @TempDir
    Path dir;

    @Test
    void debianBuiltLs() throws Exception {
        Path ls = Path.of("/usr/bin/ls");
        assertTrue(Files.isRegularFile(ls), "coreutils' ls");
        check(Files.copy(ls, dir.resolve("ls")));
    }

    @Test
    void gccBuiltPie() throws Exception {
        Tools.require(Tools.GCC);
        Files.writeString(dir.resolve("plt.c"), PLT_C);
        // -fno-builtin: the calls stay calls, through the PLT (lazy binding, gcc's default here)
        Tools.run(dir, List.of(Tools.GCC, "-O1", "-fno-builtin", "-o", "plt", "plt.c"));
        check(dir.resolve("plt"));
    }

    private void check(Path exe) throws Exception {
        Tools.require(Tools.PERF);
        long[] range = pltRange(exe);
        assertTrue(range[1] - range[0] >= 32, "a PLT of at least a header and an entry: " + exe);
        Fixture f = Fixture.cpuClock(exe);
        RecordBytes b = new RecordBytes();
        f.comm(b, exe.getFileName().toString());
        f.mmap2(b);
        List<Long> ips = new ArrayList<>();
        for (long v = range[0]; v < range[1]; v += 2) {
            ips.add(f.runtime(v));
            f.sample(b, f.runtime(v), 100 + ips.size(), 1);
        }
        Path data = dir.resolve(exe.getFileName() + ".data");
        try (PerfDataWriter w = PerfDataWriter.create(data)) {
            w.begin(f.info("simulated (profile test)", "cpu-clock:u", List.of(7L), Optional.empty()));
            b.records().forEach(r -> w.record(MemorySegment.ofArray(r)));
            w.commit();
        }
        Map<Long, String> perf = new TreeMap<>(Long::compareUnsigned);
        ProcessBuilder pb = new ProcessBuilder(Tools.PERF, "script", "-i", data.toString(), "-F", "ip,sym,dso")
                .directory(dir.toFile());
        pb.environment().put("HOME", dir.toString()); // no build-id cache of other runs
        Process p = pb.redirectError(dir.resolve("perf.err").toFile()).start();
        for (String line : new String(p.getInputStream().readAllBytes()).split("\n")) {
            String l = line.strip();
            if (!l.isEmpty()) {
                int sp = l.indexOf(' ');
                perf.put(Long.parseUnsignedLong(l.substring(0, sp), 16), l.substring(sp + 1).replaceAll("\\s+", " "));
            }
        }
        assertEquals(0, p.waitFor(), Files.readString(dir.resolve("perf.err")));
        Map<Long, String> ours = new TreeMap<>(Long::compareUnsigned);
        try (PerfDataFile file = PerfDataFile.open(data); Symbolizer s = new Symbolizer(Files.writeString(dir.resolve("no-kallsyms"), ""))) {
            for (PerfRecord r : file.records()) {
                s.add(r);
                if (r instanceof PerfRecord.Sample sample) {
                    CodeLocation l = s.locate(sample.pid(), sample.ip(), sample.cpumode());
                    ours.put(sample.ip(), l.scriptSymbol() + " (" + l.scriptDso() + ")");
                }
            }
        }
        assertEquals(ips.size(), perf.size(), "perf script printed every sample");
        assertEquals(perf, ours, "perf script -F ip,sym,dso over the PLT of " + exe);
        assertTrue(ours.values().stream().filter(n -> n.contains("@plt ")).count() >= 2, "PLT entries are named: " + ours);
    }

    /** [first, end) of .plt through .plt.got (or .plt alone), as readelf -SW gives the section headers. */
    private long[] pltRange(Path exe) throws Exception {
        long start = -1;
        long end = -1;
        for (String line : Tools.run(dir, List.of("readelf", "-SW", exe.toString())).split("\n")) {
            String[] f = line.replaceFirst("^\\s*\\[\\s*\\d+]\\s*", "").trim().split("\\s+");
            if (f.length > 5 && (f[0].equals(".plt") || f[0].equals(".plt.got"))) {
                long addr = Long.parseUnsignedLong(f[2], 16);
                long size = Long.parseUnsignedLong(f[4], 16);
                start = start < 0 ? addr : Math.min(start, addr);
                end = Math.max(end, addr + size);
            }
        }
        assertTrue(start >= 0, "readelf shows no .plt in " + exe);
        return new long[] {start, end};
    }
}
