package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MsrJournalTest {

    private static MsrJournal.Entry e(long batch, MsrJournal.Kind kind, Long undoes, int cpu, long old, long nu) {
        return MsrJournal.entry(batch, kind, false, undoes, "sim:skylake", cpu, 0x1D9, "IA32_DEBUGCTL", old, nu);
    }

    @Test
    void entriesRoundTripAndLeaveNoTemporaryFiles(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        assertEquals(1, j.newBatch());
        j.append(e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        j.append(MsrJournal.entry(1, MsrJournal.Kind.WRMSR, false, null, "hw", 3, 0xC000_0080L, null, -1L, Long.MIN_VALUE));
        List<MsrJournal.Entry> back = j.read();
        assertEquals(2, back.size());
        MsrJournal.Entry second = back.get(1);
        assertEquals(3, second.cpu());
        assertEquals(0xC000_0080L, second.msr());
        assertEquals(-1L, second.oldValue());
        assertEquals(Long.MIN_VALUE, second.newValue());
        assertEquals(2, j.newBatch());
        try (var files = Files.list(dir)) {
            assertEquals(List.of(MsrJournal.FILE, MsrJournal.FILE + ".lock"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertTrue(Files.readString(j.file()).contains("\"old\":\"0xffffffffffffffff\""), Files.readString(j.file()));
    }

    @Test
    void lastUndoableSkipsUndoneBatchesUndoBatchesAndNoOps(@TempDir Path dir) {
        MsrJournal j = new MsrJournal(dir);
        j.append(e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        j.append(e(2, MsrJournal.Kind.WRMSR, null, 0, 1, 3));
        j.append(e(2, MsrJournal.Kind.WRMSR, null, 0, 3, 7));   // same register twice: net 1 -> 7
        j.append(e(3, MsrJournal.Kind.WRMSR, null, 0, 7, 7));   // changed nothing
        MsrJournal.Batch last = j.lastUndoable().orElseThrow();
        assertEquals(2, last.id());
        assertEquals(List.of(new MsrJournal.Net(0, 0x1D9, "IA32_DEBUGCTL", 1, 7)), last.net());
        j.append(e(4, MsrJournal.Kind.UNDO, 2L, 0, 7, 1));
        assertEquals(1, j.lastUndoable().orElseThrow().id(), "after undoing 2, the next undo is 1");
        j.append(e(5, MsrJournal.Kind.UNDO, 1L, 0, 1, 0));
        assertFalse(j.lastUndoable().isPresent());
    }

    @Test
    void aMalformedLineIsBadInputNamingTheLine(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        j.append(e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        Files.writeString(j.file(), "{\"batch\":2,\"kind\":\"wrmsr\"", java.nio.file.StandardOpenOption.APPEND);
        HwException ex = assertThrows(HwException.class, j::read);
        assertEquals(Cause.BAD_INPUT, ex.reason());
        assertTrue(ex.getMessage().contains("line 2"), ex.getMessage());
        assertEquals(1, ex.getMessage().lines().count());
    }

    @Test
    void stateDirectoryFollowsXdgAndTheTestProperty(@TempDir Path dir) {
        String before = System.getProperty("hwtool.state.dir");
        try {
            System.setProperty("hwtool.state.dir", dir.toString());
            assertEquals(dir.resolve(MsrJournal.FILE), MsrJournal.atDefaultLocation().file());
            System.clearProperty("hwtool.state.dir");
            String xdg = System.getenv("XDG_STATE_HOME");
            Path expected = xdg != null && Path.of(xdg).isAbsolute() ? Path.of(xdg, "hwtool")
                    : Path.of(System.getProperty("user.home"), ".local/state/hwtool");
            assertEquals(expected.resolve(MsrJournal.FILE), MsrJournal.atDefaultLocation().file());
        } finally {
            if (before == null) {
                System.clearProperty("hwtool.state.dir");
            } else {
                System.setProperty("hwtool.state.dir", before);
            }
        }
    }
}
