package dev.hwtool.cli;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * A signal that is already pending when java starts, as the launchers start it (the three
 * blocked, -Xrs, -Dhwtool.signals=blocked): sent by the process to itself, blocked, just before it
 * execs java (a pending signal survives execve(2), and kill(2) of a blocked signal only marks it
 * pending, kernel/signal.c). Whatever the command, the exit status is 128 + N and nothing but the
 * command's own output appears:
 * <ul>
 * <li>a one-shot command ({@code --version}, {@code profiles}) ends before the signal thread
 * starts taking (ShutdownSignals.DEFER_MS, 500 ms), and Main's settlePending gives the signal's code once
 * the command is done;</li>
 * <li>a long one ({@code msr watch} of two rows 3 s apart) has the thread take it, through the
 * handler the command put in force, long before its second row.</li>
 * </ul>
 */
class PendingSignalsTest {

    @TempDir
    Path dir;

    @ParameterizedTest(name = "SIG{0} pending at start of {1}")
    @CsvSource(delimiter = '|', value = {
            "HUP|--version",
            "INT|--version",
            "TERM|--version",
            "INT|profiles",
            "TERM|msr watch --backend sim --profile skylake IA32_TIME_STAMP_COUNTER -i 3s -n 2",
            "HUP|msr watch --backend sim --profile skylake IA32_TIME_STAMP_COUNTER -i 3s -n 2"})
    void aSignalPendingAtStartGivesItsCodeWhateverTheCommand(String sig, String line) throws Exception {
        int number = switch (sig) {
            case "HUP" -> 1;
            case "INT" -> 2;
            default -> 15;
        };
        List<String> java = HwtoolProcess.asLaunched(HwtoolProcess.command(List.of(), List.of(line.split(" "))));
        // env --block-signal=... JAVA -Xrs ... becomes env --block-signal=... sh -c 'kill; exec "$@"' sh JAVA -Xrs ...
        List<String> cmd = new ArrayList<>(java.subList(0, 2));
        cmd.addAll(List.of("sh", "-c", "kill -s " + sig + " $$ && exec \"$@\"", "sh"));
        cmd.addAll(java.subList(2, java.size()));
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        Process p = HwtoolProcess.builder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        p.getOutputStream().close();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("did not end within 60 s: " + cmd);
        }
        String stdout = Files.readString(out, StandardCharsets.UTF_8);
        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        String what = "SIG" + sig + " pending at the start of '" + line + "': stdout " + stdout + ", stderr " + stderr;
        assertEquals(128 + number, p.exitValue(), what);
        for (String l : stderr.lines().toList()) {
            assertTrue(l.startsWith("hwtool: SIMULATED CPU "), "nothing on stderr but the simulator's banner: " + what);
        }
        if (line.equals("--version")) {
            assertTrue(stdout.startsWith("hwtool "), "the command ran to its end: " + what);
        } else if (line.startsWith("msr watch")) {
            assertTrue(stdout.lines().count() <= 2, "at most the header and the first row, not the second: " + what);
        }
    }
}
