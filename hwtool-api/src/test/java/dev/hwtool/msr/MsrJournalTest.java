package dev.hwtool.msr;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The MSR journal's file handling. The refusal of a state directory this user may not write is
 * {@code MsrJournalPermissionTest} in native-access: it switches the file-system uid (setfsuid(2)),
 * a native call.
 */
class MsrJournalTest {

    static MsrJournal.Entry e(long batch, MsrJournal.Kind kind, Long undoes, int cpu, long old, long nu) {
        return MsrJournal.entry(batch, kind, false, undoes, "sim:skylake", cpu, 0x1D9, "IA32_DEBUGCTL", old, nu);
    }

    /** Appends {@code entries} as one holder of the lock would. */
    static void append(MsrJournal j, MsrJournal.Entry... entries) {
        try (MsrJournal.Locked l = j.lock(null)) {
            for (MsrJournal.Entry x : entries) {
                l.append(x);
            }
        }
    }

    @Test
    void entriesRoundTripAndLeaveNoTemporaryFiles(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        try (MsrJournal.Locked l = j.lock(null)) {
            assertEquals(1, l.newBatch());
            l.append(e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
            l.append(MsrJournal.entry(1, MsrJournal.Kind.WRMSR, false, null, "hw", 3, 0xC000_0080L, null, -1L, Long.MIN_VALUE));
        }
        List<MsrJournal.Entry> back = j.entries();
        assertEquals(2, back.size());
        MsrJournal.Entry second = back.get(1);
        assertEquals(3, second.cpu());
        assertEquals(0xC000_0080L, second.msr());
        assertEquals(-1L, second.oldValue());
        assertEquals(Long.MIN_VALUE, second.newValue());
        try (MsrJournal.Locked l = j.lock(null)) {
            assertEquals(2, l.newBatch());
            assertEquals(3, l.newBatch(), "each call is a new id");
        }
        try (var files = Files.list(dir)) {
            assertEquals(List.of(MsrJournal.FILE, MsrJournal.FILE + ".lock"), files.map(p -> p.getFileName().toString()).sorted().toList());
        }
        assertTrue(Files.readString(j.file()).contains("\"old\":\"0xffffffffffffffff\""), Files.readString(j.file()));
    }

    @Test
    void lastUndoableSkipsUndoneBatchesUndoBatchesAndNoOps(@TempDir Path dir) {
        MsrJournal j = new MsrJournal(dir);
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1),
                e(2, MsrJournal.Kind.WRMSR, null, 0, 1, 3),
                e(2, MsrJournal.Kind.WRMSR, null, 0, 3, 7),   // same register twice: net 1 -> 7
                e(3, MsrJournal.Kind.WRMSR, null, 0, 7, 7));  // changed nothing
        MsrJournal.Batch last = j.lastUndoable().orElseThrow();
        assertEquals(2, last.id());
        assertEquals(List.of(new MsrJournal.Net(0, 0x1D9, "IA32_DEBUGCTL", 1, 7)), last.net());
        try (MsrJournal.Locked l = j.lock(null)) {
            l.append(e(4, MsrJournal.Kind.UNDO, 2L, 0, 7, 1));
            assertEquals(1, l.lastUndoable().orElseThrow().id(), "the holder sees its own appends");
        }
        assertEquals(1, j.lastUndoable().orElseThrow().id(), "after undoing 2, the next undo is 1");
        append(j, e(5, MsrJournal.Kind.UNDO, 1L, 0, 1, 0));
        assertFalse(j.lastUndoable().isPresent());
    }

    @Test
    void aDamagedLineRefusesRestoreLastNamingFileAndLineButNotAppends(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        Files.writeString(j.file(), "garbage {\"batch\": 9,\n", StandardOpenOption.APPEND);
        HwException ex = assertThrows(HwException.class, j::lastUndoable);
        assertEquals(Cause.BAD_INPUT, ex.cause());
        assertEquals("MSR journal " + j.file() + " line 2 is damaged (not valid JSON): cannot tell which batches are"
                + " in effect; nothing written", ex.getMessage());
        StringWriter notes = new StringWriter();
        try (MsrJournal.Locked l = j.lock(new PrintWriter(notes))) {
            assertEquals(10, l.newBatch(), "past the batch id still legible in the damaged line");
            l.append(e(10, MsrJournal.Kind.WRMSR, null, 0, 1, 2));
            assertThrows(HwException.class, l::lastUndoable);
        }
        assertEquals("hwtool: warning: MSR journal " + j.file() + " line 2 is damaged (not valid JSON);"
                + " 'msr restore --last' refuses until it is deleted\n", notes.toString());
        assertEquals(3, Files.readAllLines(j.file()).size(), "the damaged line is kept for the user to look at");
        List<String> lines = Files.readAllLines(j.file());
        lines.remove(1);
        Files.write(j.file(), lines);
        assertEquals(10, j.lastUndoable().orElseThrow().id(), "once the line is gone, --last works again");
    }

    @Test
    void aTornLastLineIsIgnoredWithAWarningAndOverwrittenByTheNextAppend(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        String whole = Files.readString(j.file());
        Files.writeString(j.file(), whole + whole.substring(0, whole.length() / 2));
        assertEquals(1, j.lastUndoable().orElseThrow().id(), "the torn line does not block --last");
        StringWriter notes = new StringWriter();
        try (MsrJournal.Locked l = j.lock(new PrintWriter(notes))) {
            l.append(e(l.newBatch(), MsrJournal.Kind.WRMSR, null, 1, 1, 2));
        }
        assertTrue(notes.toString().startsWith("hwtool: warning: MSR journal " + j.file() + " line 2 is incomplete"
                + " (not valid JSON, no newline at the end)"), notes.toString());
        assertEquals(1, notes.toString().lines().count(), notes.toString());
        List<MsrJournal.Entry> all = j.entries();
        assertEquals(List.of(1L, 2L), all.stream().map(MsrJournal.Entry::batch).toList());
        assertTrue(Files.readString(j.file()).endsWith("}\n"));
    }

    @Test
    void aWholeLastEntryWithoutItsNewlineIsKept(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        Files.writeString(j.file(), Files.readString(j.file()).stripTrailing());
        append(j, e(2, MsrJournal.Kind.WRMSR, null, 0, 1, 2));
        assertEquals(List.of(1L, 2L), j.entries().stream().map(MsrJournal.Entry::batch).toList());
    }

    @Test
    void reservedRoomIsUsedThenCutOffAndReadersSkipIt(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        long before = Files.size(j.file());
        long room = MsrJournal.reservation("sim:skylake", 0, 0x1D9, "IA32_DEBUGCTL");
        try (MsrJournal.Locked l = j.lock(null)) {
            l.reserve(room);
            assertEquals(before + room, Files.size(j.file()), "padding written before any register");
            assertEquals(1, j.entries().size(), "a reader in the meantime skips the padding");
            l.append(e(2, MsrJournal.Kind.WRMSR, null, 0, 1, 2));
            assertEquals(before + room, Files.size(j.file()), "the entry went into the padding");
            assertEquals(2, j.entries().size());
        }
        String text = Files.readString(j.file());
        assertEquals(2, text.lines().count(), "the unused padding is cut off: " + text);
        assertTrue(text.endsWith("}\n"));
        assertTrue(room >= 4 * text.lines().skip(1).findFirst().orElseThrow().length(),
                "room for the entry, its failure, its rollback and that rollback's failure");
    }

    @Test
    void paddingLeftByACrashedHolderIsReusedAndCutOff(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        String first = Files.readString(j.file());
        // killed after reserve() and one entry: the entry, then the rest of its padding
        String entry = first.replace("\"batch\":1", "\"batch\":2");
        Files.writeString(j.file(), first + entry + " ".repeat(300) + "\n");
        assertEquals(2, j.lastUndoable().orElseThrow().id());
        StringWriter notes = new StringWriter();
        try (MsrJournal.Locked l = j.lock(new PrintWriter(notes))) {
            l.append(e(l.newBatch(), MsrJournal.Kind.WRMSR, null, 0, 1, 2));
        }
        assertEquals("", notes.toString(), "blank padding is no damage");
        assertEquals(first + entry, Files.readString(j.file()).substring(0, (first + entry).length()));
        assertEquals(3, Files.readAllLines(j.file()).size(), "the padding is gone: " + Files.readString(j.file()));
        assertEquals(List.of(1L, 2L, 3L), j.entries().stream().map(MsrJournal.Entry::batch).toList());
    }

    @Test
    void boundsAndNonRegularFilesAreOneLineRefusals(@TempDir Path dir) throws IOException {
        MsrJournal j = new MsrJournal(dir);
        Files.writeString(j.file(), "{" + "x".repeat(MsrJournal.MAX_LINE) + "}\n");
        HwException longLine = assertThrows(HwException.class, j::lastUndoable);
        assertTrue(longLine.getMessage().contains("line 1 is damaged (longer than 64 KiB)"), longLine.getMessage());

        try (var f = new java.io.RandomAccessFile(j.file().toFile(), "rw")) {
            f.setLength(MsrJournal.MAX_BYTES + 1);   // sparse: costs no disk
        }
        HwException big = assertThrows(HwException.class, () -> j.lock(null));
        assertEquals(Cause.BAD_INPUT, big.cause());
        assertEquals("the MSR journal " + j.file() + " is over 64 MiB", big.getMessage());

        Files.delete(j.file());
        Files.createDirectory(j.file());
        HwException dirJournal = assertThrows(HwException.class, j::read);
        assertEquals("the MSR journal file " + j.file() + " is not a regular file: refused, nothing read or written",
                dirJournal.getMessage());
        // the lock was released on the way out: another holder gets it at once
        Files.delete(j.file());
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
    }

    /** A journal or lock that is another file's name: the other file is never read or written. */
    @Test
    void symbolicAndHardLinksAreRefusedAndTheirTargetsUntouched(@TempDir Path dir) throws IOException {
        Path state = Files.createDirectory(dir.resolve("state"));
        Path victim = Files.writeString(dir.resolve("passwd"), "root:x:0:0:root:/root:/bin/bash\n");
        byte[] before = Files.readAllBytes(victim);
        MsrJournal j = new MsrJournal(state);

        Files.createSymbolicLink(j.file(), victim);
        HwException sym = assertThrows(HwException.class, () -> append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1)));
        assertEquals(Cause.BAD_INPUT, sym.cause());
        assertEquals("the MSR journal file " + j.file() + " is a symbolic link: refused, nothing read or written",
                sym.getMessage());
        assertThrows(HwException.class, j::read);
        Files.delete(j.file());

        Files.createLink(j.file(), victim);
        HwException hard = assertThrows(HwException.class, () -> append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1)));
        assertEquals(Cause.BAD_INPUT, hard.cause());
        assertTrue(hard.getMessage().contains("has 2 hard links"), hard.getMessage());
        Files.delete(j.file());

        // the lock file too: a dangling link would otherwise be created as its target
        Path absent = dir.resolve("created-through-the-lock");
        Files.deleteIfExists(j.lockFile());
        Files.createSymbolicLink(j.lockFile(), absent);
        HwException lock = assertThrows(HwException.class, () -> append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1)));
        assertTrue(lock.getMessage().contains("is a symbolic link"), lock.getMessage());
        assertFalse(Files.exists(absent, java.nio.file.LinkOption.NOFOLLOW_LINKS) && Files.exists(absent));
        Files.delete(j.lockFile());

        org.junit.jupiter.api.Assertions.assertArrayEquals(before, Files.readAllBytes(victim));
        assertEquals(1, (Integer) Files.getAttribute(victim, "unix:nlink"));
        // and with the links gone the journal works
        append(j, e(1, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
        assertEquals(1, j.entries().size());
    }

    @Test
    void aLockHeldByAnotherThreadIsWaitedFor(@TempDir Path dir) throws Exception {
        MsrJournal j = new MsrJournal(dir);
        List<Long> ids = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        List<Thread> threads = new java.util.ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(Thread.ofPlatform().start(() -> {
                for (int i = 0; i < 10; i++) {
                    try (MsrJournal.Locked l = j.lock(null)) {
                        long b = l.newBatch();
                        l.reserve(MsrJournal.reservation("sim:skylake", 0, 0x1D9, "IA32_DEBUGCTL"));
                        l.append(e(b, MsrJournal.Kind.WRMSR, null, 0, 0, 1));
                        ids.add(b);
                    }
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        assertEquals(40, new java.util.HashSet<>(ids).size(), "unique ids: " + ids);
        assertEquals(40, j.entries().size());
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
