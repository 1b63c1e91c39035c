package dev.hwtool.cli;

import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;

import java.io.File;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * hwtool as a process of its own, on this build's class path ({@code java -cp ... dev.hwtool.cli.Main}):
 * what signals, file descriptors and mount namespaces need, which an in-process {@link Run} cannot give.
 */
final class HwtoolProcess {

    private HwtoolProcess() {
    }

    /** {@code java [jvmOptions] -cp CLASSPATH dev.hwtool.cli.Main args...}. */
    static List<String> command(List<String> jvmOptions, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC"));
        if (Runtime.version().feature() >= 23) {
            cmd.add("--sun-misc-unsafe-memory-access=allow"); // as the launcher: aircompressor's zstd
        }
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", String.join(File.pathSeparator, System.getProperty("java.class.path").split(File.pathSeparator)),
                Main.class.getName()));
        cmd.addAll(args);
        return cmd;
    }

    /**
     * {@code cmd} (a {@link #command}) started as the launchers start java: SIGHUP, SIGINT and
     * SIGTERM blocked by {@code env --block-signal}, {@code -Xrs} and {@code -Dhwtool.signals=blocked},
     * so that hwtool's own {@link dev.hwtool.linux.sys.ShutdownSignals} takes them, not the JVM.
     */
    static List<String> asLaunched(List<String> cmd) {
        List<String> c = new ArrayList<>(List.of("env", "--block-signal=HUP,INT,TERM", cmd.getFirst(), "-Xrs",
                "-Dhwtool.signals=blocked"));
        c.addAll(cmd.subList(1, cmd.size()));
        return c;
    }

    static List<String> command(String... args) {
        return command(List.of(), List.of(args));
    }

    /** A process builder for hwtool with no debugging or backend variables from this environment. */
    static ProcessBuilder builder(List<String> cmd) {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("HWTOOL_DEBUG");
        pb.environment().remove("HWTOOL_BACKEND");
        return pb;
    }

    /** x86-64 __NR_kill (asm/unistd_64.h). */
    private static final long SYS_KILL = 62;

    /**
     * Sends signal {@code number} to {@code pid} with kill(2), through hwtool's own binding: no
     * kill(1) needed (Java itself can send only SIGTERM and SIGKILL).
     */
    static void kill(int number, long pid) {
        try (NativeBinding b = Bindings.openDefault()) {
            b.syscall(SYS_KILL, pid, number);
        } catch (ErrnoException e) {
            // ESRCH: it ended meanwhile.
        }
    }

    /** {@code s} quoted for sh: between single quotes, each ' as '\''. */
    static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    static String shellLine(List<String> words) {
        return String.join(" ", words.stream().map(HwtoolProcess::shellQuote).toList());
    }
}
