package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Where the journal is (the simulated backend's, in the sim/ subdirectory of the state directory), as the XDG Base Directory spec says: $XDG_STATE_HOME/hwtool when it is an
 * absolute path, else $HOME/.local/state/hwtool; the password file's home only without $HOME.
 * The JVM's user.home comes from the password file, so $HOME must be read explicitly (issue 26:
 * "the journal ignores $HOME"). hwtool runs as a process of its own, with the environment given.
 */
class MsrJournalLocationTest {

    private static String write(Map<String, String> env) throws Exception {
        ProcessBuilder pb = HwtoolProcess.builder(HwtoolProcess.command("wrmsr", "--backend", "sim", "--profile", "skylake",
                "IA32_DEBUGCTL", "0x1"));
        pb.environment().remove("XDG_STATE_HOME");
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "hang guard");
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    @Test
    void homeIsReadFromTheEnvironment(@TempDir Path home) throws Exception {
        write(Map.of("HOME", home.toString()));
        assertTrue(Files.isRegularFile(home.resolve(".local/state/hwtool/sim/msr-journal.jsonl")));
        assertFalse(Files.exists(home.resolve(".local/state/hwtool/msr-journal.jsonl")),
                "a simulated write never creates the journal of this machine's registers");
    }

    @Test
    void anAbsoluteXdgStateHomeWinsAndARelativeOneIsIgnored(@TempDir Path home, @TempDir Path xdg) throws Exception {
        write(Map.of("HOME", home.toString(), "XDG_STATE_HOME", xdg.toString()));
        assertTrue(Files.isRegularFile(xdg.resolve("hwtool/sim/msr-journal.jsonl")));
        assertFalse(Files.exists(home.resolve(".local")));
        write(Map.of("HOME", home.toString(), "XDG_STATE_HOME", "relative/state"));
        assertTrue(Files.isRegularFile(home.resolve(".local/state/hwtool/sim/msr-journal.jsonl")));
    }
}
