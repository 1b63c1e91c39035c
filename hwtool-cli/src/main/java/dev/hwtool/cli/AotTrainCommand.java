package dev.hwtool.cli;

import dev.hwtool.linux.sys.ShutdownSignals;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Hidden: the training run the build makes its AOT cache from (hwtool/pom.xml). It runs the
 * one-shot commands people start most, in-process, so that their classes are loaded, linked
 * and profiled into the cache. Read-only: it never writes to hardware (no wrmsr, no restore).
 *
 * <p>With a FAMILY (a command's first word, or {@code version} for --version), only that
 * command's runs: the build trains one small cache per family beside the whole one, and the
 * launcher picks the cache by the command's first word. A JDK 25 AOT cache loads and links every
 * class it holds at start-up (JEP 483's AOT-linked classes: 2895 in the whole cache), so a cache
 * of one family starts faster than the cache of all commands. Since picocli's model is built for
 * the named subcommand only, that holds for the picocli commands too. Measured with the
 * launcher's java command, whole cache against the family's, wall-clock medians of 17
 * interleaved fresh JVMs on 2 shared cores (hello-world 26 ms): --version 48 / 32 ms, rdmsr on
 * the simulator 76 / 67, cpuid -l 0 107 / 104, msr decode 125 / 115, caps --json 139 / 136,
 * profiles 88 / 77. Each family costs one training run in the build (1.6-2.5 s, a 17-22 MB
 * cache). Other commands (doctor, sim, batch, ...) start with the whole cache.
 */
@Command(name = "aot-train", hidden = true, description = "Build-time AOT cache training run (read-only).")
final class AotTrainCommand implements Callable<Integer> {

    /** The families the build trains a cache of its own for (hwtool-cli/pom.xml, ./hwtool). */
    static final List<String> FAMILIES = List.of("version", "rdmsr", "cpuid", "msr", "caps", "profiles");

    @Parameters(index = "0", arity = "0..1", paramLabel = "FAMILY", description = "Only this family's runs.")
    String family;

    private static final List<String[]> RUNS = List.of(
            new String[]{"caps"},
            new String[]{"caps", "--json"},
            new String[]{"cpuid"},
            new String[]{"cpuid", "-l", "0"},
            new String[]{"cpuid", "--json", "-1"},
            new String[]{"caps", "--backend", "sim", "--profile", "alderlake"},
            new String[]{"caps", "--json", "--backend", "sim", "--profile", "skylake"},
            new String[]{"doctor"},
            new String[]{"rdmsr", "0x10"},
            new String[]{"rdmsr", "-a", "--decode", "IA32_APIC_BASE", "--backend", "sim", "--profile", "skylake"},
            new String[]{"rdmsr", "--backend", "sim", "--profile", "skylake", "0x1d9"},
            new String[]{"msr", "list"},
            new String[]{"msr", "decode", "IA32_DEBUGCTL", "0x1"},
            new String[]{"msr", "decode", "--json", "IA32_MISC_ENABLE", "0x850089"},
            new String[]{"profiles"},
            new String[]{"profiles", "--json"},
            new String[]{"sim", "list"},
            new String[]{"--version"},
            new String[]{"--help"});

    @Override
    public Integer call() {
        if (family != null && !FAMILIES.contains(family)) {
            throw new UsageException("unknown AOT family '" + family + "' (" + String.join(", ", FAMILIES) + ")");
        }
        return train(family);
    }

    /**
     * The runs of {@code family}, or all when null. Main calls it directly for a family, so that
     * parsing 'aot-train FAMILY' with picocli does not put picocli into the caches of families
     * that never use it (version, rdmsr).
     */
    static int train(String family) {
        // The signal thread Main started (the launcher blocks the signals, and the build trains
        // through the launcher): a family's commands end before it would start taking, so its
        // cache must not hold the FFM binding's classes; the other commands run longer.
        try {
            ShutdownSignals.forTraining(family == null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        for (String[] args : RUNS) {
            if (family != null && !family.equals(familyOf(args))) {
                continue;
            }
            // Output and errors are discarded: a build host without CPUID access still trains
            // the error paths, which are part of start-up too. They go through the writers Main
            // gives a real run (ByteOut over StdStream's checks, a UTF-8 PrintWriter), so that
            // the charset encoder's and the descriptor policy's classes are in the cache too.
            java.io.OutputStream none = java.io.OutputStream.nullOutputStream();
            Main.run("hwtool", args, new ByteOut(StdStream.discardingStdout()),
                    new PrintWriter(none, true, java.nio.charset.StandardCharsets.UTF_8));
        }
        return ExitCodes.OK;
    }

    /** The family a command line belongs to: its first word, or "version" for --version. */
    static String familyOf(String[] args) {
        if (args.length == 0) {
            return "";
        }
        return args[0].equals("--version") || args[0].equals("-V") ? "version" : args[0];
    }
}
