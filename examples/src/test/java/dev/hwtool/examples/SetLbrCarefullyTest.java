package dev.hwtool.examples;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * Runs task 2 with hwtool's state directory pointed at a temporary one: a simulated platform's
 * writes must leave it untouched (they go to the platform's own journal).
 */
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
        try (var files = Files.list(state)) {
            assertEquals(List.of(), files.toList(), "the user's journal is not written by a simulated platform");
        }
    }
}
