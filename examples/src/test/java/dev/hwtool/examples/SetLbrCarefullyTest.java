package dev.hwtool.examples;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs task 2 with the journal in a temporary directory instead of the user's state directory. */
class SetLbrCarefullyTest {

    @TempDir
    Path state;

    @BeforeEach
    void journalHere() {
        System.setProperty("hwtool.state.dir", state.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("hwtool.state.dir");
    }

    @Test
    void setsTheBitVerifiesItJournalsItAndUndoesIt() throws Exception {
        String s = ExamplesTest.out(() -> SetLbrCarefully.main(new String[0]));
        assertEquals("CPU 2 IA32_DEBUGCTL 0x000001d9: 0x0000000000000000 -> 0x0000000000000001 verified\n"
                + "CPU 2 IA32_DEBUGCTL 0x000001d9: 0x0000000000000001 -> 0x0000000000000000 verified\n", s);
        List<String> journal = Files.readAllLines(state.resolve("msr-journal.jsonl"));
        assertEquals(2, journal.size(), journal.toString());
        assertTrue(journal.get(0).contains("\"batch\":1,\"kind\":\"wrmsr\"") && journal.get(0).contains("\"backend\":\"sim:skylake\""),
                journal.get(0));
        assertTrue(journal.get(1).contains("\"batch\":2,\"kind\":\"undo\"") && journal.get(1).contains("\"undoes\":1"),
                journal.get(1));
    }
}
