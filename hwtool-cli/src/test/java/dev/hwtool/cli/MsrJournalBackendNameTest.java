package dev.hwtool.cli;

import com.fasterxml.jackson.jr.ob.JSON;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.msr.MsrJournal;
import dev.hwtool.msr.MsrSaveFile;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One name for a simulated backend in the journal and in save files, whoever wrote them: the CLI
 * ({@code --profile}) and the library ({@code SimulatedPlatform.of}, {@code MsrAccess.write})
 * both record {@code Profile.backend()}, "sim:" and the built-in name or the dump file's
 * absolute, normalized path. So a batch the CLI wrote with a dump spelled one way is undone
 * through the library with the dump spelled another way, and the other way round, in the CLI's
 * simulated journal (the state directory's sim/, which the library names with .journal(dir)).
 */
class MsrJournalBackendNameTest {

    @TempDir
    Path state;

    @TempDir
    Path dumps;

    @BeforeEach
    void journalInTempDir() {
        System.setProperty("hwtool.state.dir", state.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("hwtool.state.dir");
    }

    /** The skylake profile as a user's dump file: what {@code hwtool cpuid --profile skylake} prints. */
    private Path dump() throws IOException {
        Run cpuid = Run.of("cpuid", "--profile", "skylake");
        assertEquals(0, cpuid.exit(), cpuid.toString());
        Path f = dumps.resolve("skylake-dump.txt");
        Files.writeString(f, cpuid.out());
        return f;
    }

    /** The same file as the working directory sees it, relative and with a detour: not the absolute text. */
    private static String relativeSpelling(Path file) throws IOException {
        Path cwd = Path.of("").toAbsolutePath();
        String rel = cwd.relativize(file.getParent()) + "/./" + file.getFileName();
        assertTrue(Files.isSameFile(Path.of(rel), file) && !rel.equals(file.toString()), rel);
        return rel;
    }

    /**
     * The directory of the CLI's simulated backend's journal (the state directory's sim/): a
     * library write names it to share the CLI's simulated batches.
     */
    private Path simJournal() {
        return state.resolve(MsrJournal.SIMULATOR_DIR);
    }

    private List<Map<String, Object>> journal() throws IOException {
        List<Map<String, Object>> out = new ArrayList<>();
        for (String line : Files.readAllLines(state.resolve(MsrJournal.SIMULATOR_DIR).resolve(MsrJournal.FILE))) {
            out.add(JSON.std.mapFrom(line));
        }
        return out;
    }

    private static String canonical(Path file) {
        return "sim:" + file.toAbsolutePath().normalize();
    }

    @Test
    void builtInProfilesKeepTheirName() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            assertEquals("sim:skylake", p.profile().backend());
            assertEquals("skylake", p.profile().name(), "the label is unchanged");
        }
    }

    @Test
    void aDumpIsNamedByItsAbsolutePathHoweverItWasSpelled() throws IOException {
        Path f = dump();
        String rel = relativeSpelling(f);
        try (SimulatedPlatform a = SimulatedPlatform.of(rel); SimulatedPlatform b = SimulatedPlatform.of(f.toString())) {
            assertEquals(canonical(f), a.profile().backend());
            assertEquals(canonical(f), b.profile().backend());
            assertEquals(rel, a.profile().name(), "the label stays the text as given");
        }
    }

    @Test
    void aBatchTheCliWroteWithARelativeDumpPathIsUndoneByTheLibraryWithTheAbsolutePath() throws IOException {
        Path f = dump();
        Run w = Run.of("wrmsr", "--profile", relativeSpelling(f), "-p", "1", "IA32_DEBUGCTL.LBR=1");
        assertEquals(0, w.exit(), w.toString());
        assertEquals(canonical(f), journal().getFirst().get("backend"));

        try (Platform p = SimulatedPlatform.of(f.toString())) {
            // A new simulator starts from the profile's boot values: without force the undo is
            // refused for the register's value, not for the backend.
            HwException changed = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.undo(1).journal(simJournal())));
            assertEquals(Cause.BAD_INPUT, changed.cause());
            assertTrue(changed.getMessage().contains("as batch 1 left it"), changed.getMessage());
            WriteResult undone = p.msr().write(WriteRequest.undo(1).force().journal(simJournal()));
            assertEquals(1, undone.writes().size(), undone.toString());
            assertTrue(undone.allWritten(), undone.toString());
        }
        List<Map<String, Object>> j = journal();
        assertEquals(2, j.size(), j.toString());
        assertEquals("undo", j.get(1).get("kind"));
        assertEquals(1, j.get(1).get("undoes"));
        assertEquals(canonical(f), j.get(1).get("backend"));
    }

    @Test
    void aBatchTheLibraryWroteWithARelativeDumpPathIsUndoneByTheCliWithTheAbsolutePath() throws IOException {
        Path f = dump();
        try (Platform p = SimulatedPlatform.of(relativeSpelling(f))) {
            WriteResult r = p.msr().write(WriteRequest.field(1, "IA32_DEBUGCTL", "LBR", 1).journal(simJournal()));
            assertEquals(1L, r.batch().getAsLong());
        }
        assertEquals(canonical(f), journal().getFirst().get("backend"));
        Run undo = Run.of("msr", "restore", "--last", "--profile", f.toString(), "--force");
        assertEquals(0, undo.exit(), undo.toString());
        assertTrue(undo.out().startsWith("undid batch 1 (wrmsr at "), undo.out());
        assertEquals(1, journal().get(1).get("undoes"));
    }

    @Test
    void anotherDumpIsAnotherBackend() throws IOException {
        Path f = dump();
        Path other = Files.copy(f, dumps.resolve("copy.txt"));
        assertEquals(0, Run.of("wrmsr", "--profile", f.toString(), "-p", "1", "IA32_DEBUGCTL.LBR=1").exit());
        try (Platform p = SimulatedPlatform.of(other.toString())) {
            HwException e = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.undo(1).force().journal(simJournal())));
            assertEquals(Cause.BAD_INPUT, e.cause());
            assertTrue(e.getMessage().contains("was written on " + canonical(f) + ", not " + canonical(other)), e.getMessage());
        }
        Run cli = Run.of("msr", "restore", "--last", "--profile", other.toString(), "--force");
        assertEquals(2, cli.exit(), cli.toString());
        assertTrue(cli.err().contains("run with --backend sim --profile " + f.toAbsolutePath().normalize()), cli.err());
    }

    /** The journal holds the path as it is; messages quote it for the terminal (an ESC shows as \x1b). */
    @Test
    void aDumpPathWithAControlCharacterIsQuotedWhereItIsShown() throws IOException {
        Path f = Files.move(dump(), dumps.resolve("esc\u001b.txt"));
        assertEquals(0, Run.of("wrmsr", "--profile", f.toString(), "-p", "1", "IA32_DEBUGCTL.LBR=1").exit());
        assertEquals(canonical(f), journal().getFirst().get("backend"), "stored as it is");
        Run cli = Run.of("msr", "restore", "--last", "--profile", "skylake", "--force");
        assertEquals(2, cli.exit(), cli.toString());
        assertTrue(cli.err().contains("esc\\x1b.txt") && !cli.err().contains("\u001b"), cli.err());
        try (Platform p = SimulatedPlatform.of("skylake")) {
            HwException e = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.undo(1).journal(simJournal())));
            assertTrue(e.getMessage().contains("esc\\x1b.txt") && !e.getMessage().contains("\u001b"), e.getMessage());
        }
    }

    @Test
    void aSaveFileFromTheLibraryRestoresThroughTheCliWithAnotherSpelling() throws IOException {
        Path f = dump();
        Path saved = dumps.resolve("regs.json");
        try (Platform p = SimulatedPlatform.of(relativeSpelling(f))) {
            p.msr().save(saved, List.of(1), List.of("IA32_DEBUGCTL"));
        }
        assertEquals(canonical(f), MsrSaveFile.read(saved).backend());
        Run restore = Run.of("msr", "restore", saved.toString(), "--profile", f.toString());
        assertEquals(0, restore.exit(), restore.toString());
        assertTrue(restore.out().contains("restored 0 register values"), restore.out());
        Run elsewhere = Run.of("msr", "restore", saved.toString(), "--profile", "skylake");
        assertNotEquals(0, elsewhere.exit(), elsewhere.toString());
        assertTrue(elsewhere.err().contains("not on sim:skylake"), elsewhere.err());
    }
}
