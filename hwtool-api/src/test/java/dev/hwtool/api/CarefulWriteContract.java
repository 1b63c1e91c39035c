package dev.hwtool.api;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link MsrAccess#write(WriteRequest)} through a {@link Platform}: the careful path (catalog
 * checks, dry run, journal, read-back, undo) on whatever backend the subclass opens. Every write
 * is undone again, and the journal lives in a temporary directory. Needs an Intel CPU with
 * IA32_DEBUGCTL.LBR (SDM Vol. 4, Table 2-2: bit 0) on its last CPU.
 */
public abstract class CarefulWriteContract {

    static final int IA32_DEBUGCTL = 0x1D9;

    @TempDir
    protected Path journal;

    /** A fresh platform for one test; closed by the test. */
    protected abstract Platform platform();

    private static int lastCpu(Platform p) {
        return p.msr().cpus().getLast();
    }

    private List<String> journalLines() throws IOException {
        Path f = journal.resolve("msr-journal.jsonl");
        return Files.exists(f) ? Files.readAllLines(f) : List.of();
    }

    @Test
    void aFieldWriteIsCheckedJournaledVerifiedAndUndone() throws IOException {
        try (Platform p = platform()) {
            int cpu = lastCpu(p);
            long before = p.msr().read(cpu, IA32_DEBUGCTL);
            WriteResult r = p.msr().write(WriteRequest.field(cpu, "IA32_DEBUGCTL", "LBR", 1).journal(journal));
            assertEquals(p.kind() == Platform.Kind.SIMULATED, r.simulated());
            assertFalse(r.dryRun());
            assertEquals(1, r.writes().size(), r.toString());
            WriteResult.Write w = r.writes().getFirst();
            assertEquals(new WriteResult.Write(cpu, IA32_DEBUGCTL, Optional.of("IA32_DEBUGCTL"), before, before | 1,
                    true, true, false), w);
            assertTrue(r.allWritten());
            assertEquals(before | 1, p.msr().read(cpu, IA32_DEBUGCTL));
            assertTrue(r.batch().isPresent(), "journaled");
            List<String> lines = journalLines();
            assertEquals(1, lines.size(), lines.toString());
            assertTrue(lines.getFirst().contains("\"kind\":\"wrmsr\"") && lines.getFirst().contains("\"cpu\":" + cpu)
                    && lines.getFirst().contains("\"name\":\"IA32_DEBUGCTL\""), lines.getFirst());

            WriteResult undone = p.msr().write(WriteRequest.undo(r.batch().getAsLong()).journal(journal));
            assertEquals(before, p.msr().read(cpu, IA32_DEBUGCTL), "put back");
            assertEquals(List.of(new WriteResult.Write(cpu, IA32_DEBUGCTL, Optional.of("IA32_DEBUGCTL"), before | 1, before,
                    true, true, false)), undone.writes());
            assertTrue(journalLines().get(1).contains("\"undoes\":" + r.batch().getAsLong()), journalLines().toString());

            HwException twice = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.undo(r.batch().getAsLong()).journal(journal)));
            assertEquals(Cause.BAD_INPUT, twice.cause());
            assertTrue(twice.getMessage().contains("undone already"), twice.getMessage());
            HwException nothing = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.undoLast().journal(journal)));
            assertTrue(nothing.getMessage().startsWith("nothing to undo"), nothing.getMessage());
        }
    }

    @Test
    void aResultKnowsItsJournalAndAnUndoElsewhereSaysSo(@TempDir Path elsewhere) {
        try (Platform p = platform()) {
            int cpu = lastCpu(p);
            long before = p.msr().readField(cpu, "IA32_DEBUGCTL", "LBR");
            WriteResult r = p.msr().write(WriteRequest.field(cpu, "IA32_DEBUGCTL", "LBR", 1 - before).journal(journal));
            assertEquals(Optional.of(journal), r.journal(), "the result names the journal its batch is in");
            assertEquals(1 - before, p.msr().readField(cpu, "ia32_debugctl", "lbr"), "fields by name, any case");

            // the same batch id asked of another journal: the directory is the problem, and the hint says so
            HwException wrongPlace = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.undo(r.batch().getAsLong()).journal(elsewhere)));
            assertEquals(Cause.BAD_INPUT, wrongPlace.cause());
            assertTrue(wrongPlace.getMessage().contains("it has no batches") && wrongPlace.getMessage().contains("another journal"),
                    wrongPlace.getMessage());
            assertTrue(wrongPlace.remedy().orElseThrow().contains("WriteRequest.undo(result)"), wrongPlace.remedy().toString());

            WriteResult undone = p.msr().write(WriteRequest.undo(r));
            assertEquals(Optional.of(journal), undone.journal());
            assertEquals(before, p.msr().readField(cpu, "IA32_DEBUGCTL", "LBR"), "put back, from the result's own journal");
            assertEquals(p.msr().read(cpu, IA32_DEBUGCTL), p.msr().read(cpu, "IA32_DEBUGCTL"));
            assertEquals(p.msr().read(cpu, IA32_DEBUGCTL), p.msr().read(cpu, "0x1d9"));

            IllegalArgumentException dry = assertThrows(IllegalArgumentException.class, () -> WriteRequest.undo(
                    p.msr().write(WriteRequest.field(cpu, "IA32_DEBUGCTL", "LBR", 1).journal(journal).dryRun())));
            assertTrue(dry.getMessage().contains("no journal batch"), dry.getMessage());
        }
    }

    @Test
    void namedReadsRefuseWhatTheCatalogLacks() {
        try (Platform p = platform()) {
            HwException name = assertThrows(HwException.class, () -> p.msr().read(0, "IA32_NO_SUCH_REGISTER"));
            assertEquals(Cause.BAD_INPUT, name.cause());
            HwException field = assertThrows(HwException.class, () -> p.msr().readField(0, "IA32_DEBUGCTL", "NO_SUCH_FIELD"));
            assertEquals(Cause.BAD_INPUT, field.cause());
            assertTrue(field.getMessage().contains("(fields: LBR, BTF"), field.getMessage());
            HwException index = assertThrows(HwException.class, () -> p.msr().readField(0, "0x40000000", "LBR"));
            assertEquals(Cause.BAD_INPUT, index.cause());
        }
    }

    @Test
    void aDryRunReadsAndChecksButWritesNothing() throws IOException {
        try (Platform p = platform()) {
            int cpu = lastCpu(p);
            long before = p.msr().read(cpu, IA32_DEBUGCTL);
            WriteResult r = p.msr().write(WriteRequest.field(cpu, "IA32_DEBUGCTL", "LBR", 1).journal(journal).dryRun());
            assertTrue(r.dryRun());
            assertEquals(before | 1, r.writes().getFirst().newValue());
            assertFalse(r.writes().getFirst().written());
            assertTrue(r.batch().isEmpty());
            assertEquals(before, p.msr().read(cpu, IA32_DEBUGCTL));
            assertEquals(List.of(), journalLines());
        }
    }

    @Test
    void refusalsComeBeforeAnyWrite() throws IOException {
        try (Platform p = platform()) {
            int cpu = lastCpu(p);
            long before = p.msr().read(0, IA32_DEBUGCTL);
            HwException readOnly = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.field(0, "IA32_DEBUGCTL", "LBR", 1)
                            .then(WriteRequest.value(cpu, "IA32_PERF_CAPABILITIES", 0)).journal(journal)));
            assertEquals(Cause.BAD_INPUT, readOnly.cause());
            assertTrue(readOnly.getMessage().contains("read-only") && readOnly.getMessage().endsWith("nothing written"),
                    readOnly.getMessage());
            assertEquals(before, p.msr().read(0, IA32_DEBUGCTL), "the first write of the request was not made either");

            HwException noField = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.field(0, "IA32_DEBUGCTL", "NO_SUCH_FIELD", 1).journal(journal)));
            assertEquals(Cause.BAD_INPUT, noField.cause());
            assertTrue(noField.getMessage().startsWith("IA32_DEBUGCTL has no field 'NO_SUCH_FIELD' (fields: LBR, BTF"),
                    noField.getMessage());
            HwException noName = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.value(0, "IA32_NO_SUCH_REGISTER", 1).journal(journal)));
            assertEquals(Cause.BAD_INPUT, noName.cause());
            HwException reserved = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.value(0, "IA32_DEBUGCTL", 1L << 40).journal(journal)));
            assertEquals(Cause.BAD_INPUT, reserved.cause());
            HwException outside = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.value(0, 0x4000_0000, 1).journal(journal)));
            assertEquals(Cause.BAD_INPUT, outside.cause());
            assertTrue(outside.getMessage().contains("not in hwtool's catalog"), outside.getMessage());
            HwException noCpu = assertThrows(HwException.class,
                    () -> p.msr().write(WriteRequest.field(cpu + 1000, "IA32_DEBUGCTL", "LBR", 1).journal(journal)));
            assertEquals(Cause.NO_SUCH_CPU, noCpu.cause());
            assertEquals(List.of(), journalLines(), "nothing journaled");
        }
    }

    @Test
    void withoutAJournalTheWriteIsStillCheckedAndVerifiedButCannotBeUndone() throws IOException {
        try (Platform p = platform()) {
            int cpu = lastCpu(p);
            long before = p.msr().read(cpu, IA32_DEBUGCTL);
            WriteResult r = p.msr().write(WriteRequest.field(cpu, "IA32_DEBUGCTL", "LBR", 1).withoutJournal());
            assertTrue(r.batch().isEmpty());
            assertTrue(r.writes().getFirst().verified());
            HwException undo = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.undoLast().withoutJournal()));
            assertEquals(Cause.BAD_INPUT, undo.cause());
            p.msr().write(WriteRequest.value(cpu, "IA32_DEBUGCTL", before).withoutJournal());
            assertEquals(before, p.msr().read(cpu, IA32_DEBUGCTL));
            assertEquals(List.of(), journalLines());
        }
    }
}
