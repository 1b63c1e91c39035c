package dev.hwtool.arch.cpuid;

import dev.hwtool.testing.Preconditions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Runs Todd Allen's {@code cpuid} tool for tests; skips the test (with the reason) if it is absent, fails in CI. */
final class CpuidTool {

    record Result(int exitCode, String stdout, String stderr) {
    }

    private CpuidTool() {
    }

    static Optional<Path> binary() {
        return Preconditions.findOnPath("cpuid");
    }

    /** Runs {@code cpuid args...}; skips the test when the binary is absent (fails under HWTOOL_REQUIRE_ALL). */
    static Result run(String... args) throws IOException, InterruptedException {
        Path bin = Preconditions.onPath("cpuid", "cpuid");
        List<String> cmd = new ArrayList<>();
        cmd.add(bin.toString());
        cmd.addAll(List.of(args));
        Path out = Files.createTempFile("cpuid-out", ".txt");
        Path err = Files.createTempFile("cpuid-err", ".txt");
        try {
            Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("cpuid " + String.join(" ", args) + " did not finish in 60 s");
            }
            return new Result(p.exitValue(), Files.readString(out, StandardCharsets.ISO_8859_1),
                    Files.readString(err, StandardCharsets.ISO_8859_1));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }

    /** {@code cpuid -1 -r} output, required to succeed. */
    static String oneCpuRaw() throws IOException, InterruptedException {
        Result r = run("-1", "-r");
        if (r.exitCode() != 0) {
            throw new IllegalStateException("cpuid -1 -r failed (" + r.exitCode() + "): " + r.stderr());
        }
        return r.stdout();
    }
}
