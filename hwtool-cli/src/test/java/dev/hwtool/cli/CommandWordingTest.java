package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Backend options before the command, generate-completion's options, and wrmsr's exit codes. */
class CommandWordingTest {

    @TempDir
    Path state;

    @BeforeEach
    void journalInTempDir() {
        System.setProperty("hwtool.state.dir", state.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("hwtool.state.dir");
    }

    @Test
    void backendOptionsBeforeTheCommandBelongToIt() {
        Run after = Run.of("rdmsr", "--backend", "sim", "--profile", "skylake", "-x", "0x345");
        assertEquals(0, after.exit(), after::toString);
        for (String[] before : new String[][]{{"--backend", "sim", "--profile", "skylake", "rdmsr", "-x", "0x345"},
                {"--backend=sim", "--profile=skylake", "rdmsr", "-x", "0x345"},
                {"--profile", "skylake", "--binding", "jna", "rdmsr", "-x", "0x345"}}) {
            Run r = Run.of(before);
            assertEquals(0, r.exit(), String.join(" ", before) + "\n" + r);
            assertEquals(after.out(), r.out());
        }
        // a nested command: the options go after its whole name
        Run nested = Run.of("--profile", "skylake", "msr", "restore", "--last", "--dry-run");
        assertEquals(3, nested.exit(), nested::toString);
        assertTrue(nested.err().contains("hwtool: nothing to undo: no write batch in "), nested::toString);
    }

    @Test
    void backendOptionsWithoutACommandSaySo() {
        Run none = Run.of("--backend", "sim");
        assertEquals(2, none.exit(), none::toString);
        assertEquals("hwtool: no command given: --backend is an option of a command, e.g. hwtool rdmsr --backend sim"
                + " --profile skylake 0x10 (see 'hwtool --help')\n", none.err());
        Run bogus = Run.of("--backend", "sim", "--profile", "skylake", "bogus", "0x10");
        assertEquals(2, bogus.exit(), bogus::toString);
        assertTrue(bogus.err().startsWith("hwtool: 'bogus' is not a command: --backend is an option of a command"),
                bogus::toString);
    }

    @Test
    void generateCompletionPrintsTheScriptAndRefusesUnknownOptions() {
        Run ok = Run.of("generate-completion");
        assertEquals(0, ok.exit(), ok::toString);
        assertTrue(ok.out().contains("complete -F _complete_hwtool"), ok.out());
        assertTrue(ok.out().contains("rdmsr") && ok.out().contains("restore"), "every command is completed");
        Run bad = Run.of("generate-completion", "--bogus");
        assertEquals(ExitCodes.USAGE, bad.exit(), bad::toString);
        assertEquals("", bad.out());
        assertTrue(bad.err().startsWith("hwtool: Unknown option: '--bogus'\n"), bad::toString);
    }

    /** Every code wrmsr can return (msr-tools' and its own) is in its usage text, and nothing more. */
    @Test
    void wrmsrHelpListsEveryExitCodeItCanReturn() {
        StringWriter text = new StringWriter();
        WrmsrCommand.usage(new PrintWriter(text));
        String exit = text.toString().substring(text.toString().indexOf("Exit:"));
        TreeSet<Integer> listed = new TreeSet<>();
        Matcher m = Pattern.compile("(?<![\\w-])(\\d+) [a-zA-Z#]").matcher(exit);
        while (m.find()) {
            listed.add(Integer.parseInt(m.group(1)));
        }
        TreeSet<Integer> possible = new TreeSet<>(java.util.List.of(0, 2, 3, 4, MsrToolsErrors.OTHER));
        for (Cause c : Cause.values()) {
            possible.add(WrmsrCommand.exit(new HwException(c, "x")));
        }
        assertEquals(possible, listed, exit);
        assertTrue(exit.contains("13 the journal could not be written"), exit);
    }

    @Test
    void wrmsrExitCodesForACpuThatDoesNotExistAndAProfileThatCannotBeOpened() {
        Run noCpu = Run.of("wrmsr", "--profile", "skylake", "-p", "99", "IA32_DEBUGCTL", "1");
        assertEquals(2, noCpu.exit(), noCpu::toString);
        Run noProfile = Run.of("wrmsr", "--profile", "no-such-profile", "IA32_DEBUGCTL", "1");
        assertEquals(127, noProfile.exit(), noProfile::toString);
        assertEquals(127, Run.of("rdmsr", "--profile", "no-such-profile", "IA32_DEBUGCTL").exit(), "as rdmsr");
    }
}
