package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Errors, not Exceptions, as a user meets them: hwtool run as a process ({@link Main#main}) with a
 * broken environment, so that what reaches stderr is exactly what a user sees. picocli hands only
 * Exceptions to Cli's handler; an Error must still give one line and exit 1, or its cause's code.
 */
class ErrorReportingTest {

    private record Proc(int exit, String out, String err) {
        List<String> errLines() {
            return err.lines().filter(l -> !l.startsWith("WARNING: ")).toList(); // JDK native-access notes, if any
        }

        @Override
        public String toString() {
            return "exit " + exit + "\n--- stdout\n" + out + "--- stderr\n" + err;
        }
    }

    /** {@code java [jvmOptions] -cp CLASSPATH dev.hwtool.cli.Main args}, the class path filtered by {@code keep}. */
    private static Proc hwtool(List<String> jvmOptions, String dropFromClassPath, Map<String, String> env, String... args)
            throws IOException, InterruptedException {
        String cp = Arrays.stream(System.getProperty("java.class.path").split(File.pathSeparator))
                .filter(e -> dropFromClassPath == null || !e.contains(dropFromClassPath))
                .collect(Collectors.joining(File.pathSeparator));
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED"));
        cmd.addAll(jvmOptions);
        cmd.addAll(List.of("-cp", cp, Main.class.getName()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("HWTOOL_DEBUG");
        pb.environment().remove("HWTOOL_BACKEND");
        pb.environment().putAll(env);
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "hwtool timed out");
        return new Proc(p.exitValue(), out, err);
    }

    /** A broken install (a jar missing from the class path) is a bug report in one line, exit 1. */
    @Test
    void anErrorFromACommandIsOneInternalErrorLine() throws IOException, InterruptedException {
        Proc r = hwtool(List.of(), "jackson-jr", Map.of(), "caps", "--json", "--backend", "sim", "--profile", "skylake");
        assertEquals(1, r.exit(), r::toString);
        assertEquals("", r.out(), r::toString);
        assertEquals(List.of("hwtool: internal error: NoClassDefFoundError: com/fasterxml/jackson/jr/ob/JSON"
                + " (set HWTOOL_DEBUG=1 for the stack trace)"), r.errLines(), r::toString);

        Proc debug = hwtool(List.of(), "jackson-jr", Map.of("HWTOOL_DEBUG", "1"), "caps", "--json", "--backend", "sim",
                "--profile", "skylake");
        assertEquals(1, debug.exit(), debug::toString);
        assertTrue(debug.err().contains("\tat dev.hwtool.cli."), "HWTOOL_DEBUG=1 prints the trace\n" + debug);
    }

    /**
     * --binding jna where JNA cannot unpack its library (here: a jna.tmpdir it may not write; in a
     * --read-only container, a noexec /tmp): unsupported here, one line and the remedy, and none of
     * the stack trace JNA itself logs about the directory.
     */
    @Test
    void aJnaThatCannotLoadIsUnsupportedInOneLineWithTheRemedy() throws IOException, InterruptedException {
        Proc r = hwtool(List.of("-Djna.tmpdir=/proc/sys"), null, Map.of(), "cpuid", "--binding", "jna", "-1", "-l", "0");
        assertEquals(Cause.UNSUPPORTED.exitCode(), r.exit(), r::toString);
        assertEquals("", r.out(), r::toString);
        List<String> lines = r.errLines();
        assertEquals(2, lines.size(), r::toString);
        assertEquals("hwtool: the jna binding cannot run here: JNA cannot unpack libjnidispatch.so (Failed to create"
                + " temporary file for /com/sun/jna/linux-x86-64/libjnidispatch.so library: JNA temporary directory"
                + " '/proc/sys' is not writable)", lines.get(0));
        assertTrue(lines.get(1).startsWith("hwtool: fix: use --binding ffm"), r::toString);
        assertFalse(r.err().contains("\tat ") || r.err().contains("Exception"), r::toString);

        Proc ffm = hwtool(List.of("-Djna.tmpdir=/proc/sys"), null, Map.of(), "cpuid", "--binding", "ffm", "-1", "-l", "0");
        assertEquals(0, ffm.exit(), "the remedy works: " + ffm);
    }
}
