package dev.hwtool.record;

import dev.hwtool.testing.Preconditions;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** External reference tools (perf, gcc, binutils), run as processes; tests needing one skip with the reason (fail in CI, see Preconditions). */
final class Tools {

    static final String PERF = "/usr/bin/perf";
    static final String GCC = "/usr/bin/gcc";

    /** A spinning program: most of its samples fall in hwtool_spin. */
    static final String SPIN_C = """
            #include <stdlib.h>
            volatile unsigned long sink;
            __attribute__((noinline)) void hwtool_spin(unsigned long n) {
                for (unsigned long i = 0; i < n; i++) sink += i * 7;
            }
            int main(int argc, char **argv) {
                hwtool_spin(argc > 1 ? strtoul(argv[1], 0, 10) : 1000);
                return 0;
            }
            """;

    private Tools() {
    }

    /** Skips without {@code tool}, but fails under HWTOOL_REQUIRE_ALL (CI), where .ci/run installs it. */
    static void require(String tool) {
        Preconditions.tool(tool, tool.endsWith("perf") ? "linux-perf" : tool.endsWith("gcc") ? "gcc" : "binutils");
    }

    /** Runs argv, returns stdout; fails the test on a non-zero exit with stderr. */
    static String run(Path dir, List<String> argv) throws IOException, InterruptedException {
        Path err = Files.createTempFile(dir, "stderr", ".txt");
        Process p = new ProcessBuilder(argv).directory(dir.toFile()).redirectError(err.toFile()).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new AssertionError(argv + " did not finish");
        }
        if (p.exitValue() != 0) {
            throw new AssertionError(argv + " exited " + p.exitValue() + ": " + Files.readString(err));
        }
        return out;
    }

    /** Compiles {@link #SPIN_C} with gcc (PIE unless told otherwise). */
    static Path compileSpin(Path dir, String name, String... flags) throws IOException, InterruptedException {
        require(GCC);
        Path src = dir.resolve(name + ".c");
        Files.writeString(src, SPIN_C);
        List<String> argv = new java.util.ArrayList<>(List.of(GCC, "-O1", "-o", name, src.toString()));
        argv.addAll(List.of(flags));
        run(dir, argv);
        return dir.resolve(name);
    }

    /** nm's address of a defined symbol. */
    static long nmAddress(Path dir, Path elf, String symbol) throws IOException, InterruptedException {
        for (String line : run(dir, List.of("nm", elf.toString())).split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 3 && f[2].equals(symbol)) {
                return Long.parseUnsignedLong(f[0], 16);
            }
        }
        throw new AssertionError(symbol + " not in nm " + elf);
    }
}
