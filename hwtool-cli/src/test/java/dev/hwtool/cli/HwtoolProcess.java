package dev.hwtool.cli;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

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
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", String.join(File.pathSeparator, System.getProperty("java.class.path").split(File.pathSeparator)),
                Main.class.getName()));
        cmd.addAll(args);
        return cmd;
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

    /** Sends {@code signal} (INT, TERM, HUP, ...) to {@code pid} with kill(1). */
    static void kill(String signal, long pid) throws IOException, InterruptedException {
        Process k = new ProcessBuilder("kill", "-s", signal, Long.toString(pid)).redirectErrorStream(true).start();
        k.getInputStream().readAllBytes();
        if (!k.waitFor(30, TimeUnit.SECONDS)) {
            k.destroyForcibly();
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
