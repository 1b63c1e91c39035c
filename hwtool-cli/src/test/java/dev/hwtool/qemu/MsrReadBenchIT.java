package dev.hwtool.qemu;

import dev.hwtool.cli.Require;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MSR read path, measured where a msr driver exists: one QEMU guest (TCG, 2 CPUs, msr.ko
 * loaded at boot) runs the C reference {@code benchmarks/src/main/c/msr_read_loop.c}, then the
 * Java loop {@code dev.hwtool.bench.MsrReadLoop} (from benchmarks.jar), then the C reference
 * again, so drift over the boot shows. The figures go to one file that
 * {@code benchmarks/scripts/report.py --msr} turns into the results table.
 *
 * <p>A benchmark, not a test: it asserts only that every loop ran and reported, never a
 * timing. It is excluded from the normal {@code verify} (hwtool-cli/pom.xml) and runs only when
 * asked for by {@code benchmarks/run.sh}:
 * {@code mvn -pl hwtool-cli -am verify -Dit.test=MsrReadBenchIT -Dhwtool.bench.msr=true ...}.
 *
 * <p>System properties (defaults in brackets): {@code hwtool.bench.msr.c} the compiled C loop
 * [benchmarks/target/run/msr_read_loop], {@code hwtool.bench.msr.jar} [benchmarks/target/benchmarks.jar],
 * {@code hwtool.bench.msr.out} [hwtool-cli/target/msr-bench/msr-read.tsv],
 * {@code hwtool.bench.msr.register} [0x1b, IA32_APIC_BASE: QEMU's TCG implements it, SDM Vol. 3A 11.4.4],
 * {@code hwtool.bench.msr.scale} [1], {@code hwtool.bench.msr.runs} [5], {@code hwtool.bench.msr.warmups} [10],
 * {@code hwtool.bench.msr.timeout.seconds} [1200].
 */
@EnabledIfSystemProperty(named = "hwtool.bench.msr", matches = "true",
        disabledReason = "a benchmark of several minutes; benchmarks/run.sh runs it with -Dhwtool.bench.msr=true")
class MsrReadBenchIT {

    /** What each side must report: the names of msr_read_loop.c's and MsrReadLoop's operations. */
    private static final Set<String> C_OPS = Set.of("msrRead", "msrReadAll", "msrReadAllOpen", "msrReadAllOnline", "tmpPread");
    private static final Set<String> JAVA_OPS = Set.of("ffmRead", "jnaRead", "ffmPread", "jnaPread", "ffmTmpPread", "jnaTmpPread",
            "ffmReadAll", "ffmSessionAll", "rdmsrAll");

    private static final Path C_LOOP = property("hwtool.bench.msr.c", RealKernel.ROOT.resolve("benchmarks/target/run/msr_read_loop"));
    private static final Path BENCH_JAR = property("hwtool.bench.msr.jar", RealKernel.ROOT.resolve("benchmarks/target/benchmarks.jar"));
    private static final Path OUT = property("hwtool.bench.msr.out", RealKernel.TARGET.resolve("msr-bench/msr-read.tsv"));

    @Test
    void cAndJavaReadTheSameMsrInOneBoot() throws Exception {
        Kernel kernel = RealKernel.require();
        Require.that(Files.isExecutable(C_LOOP), C_LOOP + " is missing: benchmarks/run.sh compiles it (gcc -O2)");
        Require.that(Files.isRegularFile(BENCH_JAR), BENCH_JAR + " is missing: mvn -pl benchmarks -am package");
        String msr = System.getProperty("hwtool.bench.msr.register", "0x1b");
        String scale = System.getProperty("hwtool.bench.msr.scale", "1");
        String runs = System.getProperty("hwtool.bench.msr.runs", "5");
        String warmups = System.getProperty("hwtool.bench.msr.warmups", "10");

        List<String> c = List.of(C_LOOP.toString(), msr, scale, runs);
        // Tiered compilation left on (the guest checks use C1 only): the loop is measured after
        // warm-up, in the steady state a long-running user of the library reaches. -Xbatch: a C2
        // compile takes seconds under TCG; done in the foreground, it ends within the warm-up
        // instead of running beside a timed run on the guest's other CPU.
        List<String> java = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-Xbatch", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xmx256m",
                "-cp", BENCH_JAR.toString(), "dev.hwtool.bench.MsrReadLoop", msr, scale, runs, warmups);
        String o = "\"$HWTOOL_OUT\"";
        String script = "set -e\n"
                + "uname -r >" + o + "/kernel\n"
                + Shell.join(c) + " >" + o + "/c-1.tsv\n"
                + Shell.join(java) + " >" + o + "/java.tsv 2>" + o + "/java.log\n"
                + Shell.join(c) + " >" + o + "/c-2.tsv\n";
        GuestRun run = RealKernel.guest("msr-bench", kernel).modules("msr")
                .timeout(Duration.ofSeconds(Long.getLong("hwtool.bench.msr.timeout.seconds", 1200)))
                .command(script).build().boot().requireCompleted();
        System.out.println("[qemu] guest 'msr-bench' ran " + run.elapsed().toSeconds() + " s");
        assertEquals(0, run.guestExit().getAsInt(), () -> "the guest's benchmark script failed\n--- java.log\n"
                + run.outFile("java.log") + "\n--- last console lines\n" + run.consoleTail(30));

        List<String> lines = new ArrayList<>();
        lines.add("# MSR read path: QEMU " + qemuVersion() + ", TCG, 2 CPUs, guest kernel " + run.outFile("kernel").strip()
                + ", booted and measured in " + run.elapsed().toSeconds() + " s");
        lines.add("# C: " + String.join(" ", c) + " (pass 1, before Java)");
        lines.addAll(run.outFile("c-1.tsv").lines().toList());
        lines.add("# Java: " + String.join(" ", java));
        lines.addAll(run.outFile("java.tsv").lines().toList());
        lines.add("# C: pass 2, after Java");
        lines.addAll(run.outFile("c-2.tsv").lines().toList());
        Files.createDirectories(OUT.toAbsolutePath().getParent());
        Files.write(OUT, lines, StandardCharsets.UTF_8);
        System.out.println(String.join("\n", lines));
        System.out.println("[msr-bench] written to " + OUT);

        assertEquals(C_OPS, names(run.outFile("c-1.tsv")), "C pass 1 reported every operation");
        assertEquals(C_OPS, names(run.outFile("c-2.tsv")), "C pass 2 reported every operation");
        assertEquals(JAVA_OPS, names(run.outFile("java.tsv")), "the Java loop reported every operation");
        assertTrue(run.outFile("java.tsv").contains("# hwtool rdmsr -a"), "the Java loop checked rdmsr -a's output");
    }

    private static Set<String> names(String tsv) {
        Set<String> names = new TreeSet<>();
        tsv.lines().filter(l -> !l.isBlank() && !l.startsWith("#")).forEach(l -> names.add(l.split("\t", 2)[0]));
        return names;
    }

    private static String qemuVersion() throws IOException, InterruptedException {
        Process p = new ProcessBuilder(QemuGuest.QEMU.toString(), "--version").redirectErrorStream(true).start();
        String first = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().findFirst().orElse("");
        p.waitFor();
        return first.replaceFirst("^QEMU emulator version ", "");
    }

    private static Path property(String name, Path fallback) {
        String v = System.getProperty(name);
        return (v == null || v.isBlank() ? fallback : Path.of(v)).toAbsolutePath().normalize();
    }
}
