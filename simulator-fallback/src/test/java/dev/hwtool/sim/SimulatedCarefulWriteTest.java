package dev.hwtool.sim;

import dev.hwtool.api.CarefulWriteContract;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import dev.hwtool.arch.cpuid.CpuidDump;
import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.msr.MsrSaveFile;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The careful write path on the simulator: the {@link CarefulWriteContract} on a Skylake and the
 * hybrid Alder Lake (whose last CPU is a Gracemont E-core), and what only a simulated machine
 * can show: a failure on one CPU that rolls every other back, and a save file restored.
 */
class SimulatedCarefulWriteTest {

    @Nested
    class Skylake extends CarefulWriteContract {
        @Override
        protected Platform platform() {
            return SimulatedPlatform.of("skylake");
        }
    }

    @Nested
    class AlderLake extends CarefulWriteContract {
        @Override
        protected Platform platform() {
            return SimulatedPlatform.of("alderlake");
        }
    }

    static final int IA32_PMC0 = 0xC1;

    /**
     * A Skylake whose CPU 0 has 32-bit counters (CPUID leaf 0AH EAX[23:16], SDM Vol. 3B 20.2.1)
     * and the others 48-bit ones. A write of 0x80000000 to IA32_PMC0 sign-extends bit 31 into
     * the upper counter bits (SDM Vol. 3B 20.2.5, "full-width writes" not enabled), which
     * hwtool's catalog does not model: it reads back as written on CPU 0 only.
     */
    static SimulatedPlatform narrowCountersOnCpu0() {
        Profile sky = Profiles.resolve("skylake");
        List<CpuidSnapshot> cpus = new ArrayList<>();
        for (CpuidSnapshot s : sky.dump().cpus()) {
            if (s.cpu() != 0) {
                cpus.add(s);
                continue;
            }
            List<CpuidLeaf> leaves = new ArrayList<>();
            for (CpuidLeaf l : s.leaves()) {
                CpuidRegs r = l.regs();
                leaves.add(l.leaf() == 0xA ? new CpuidLeaf(0xA, l.subleaf(),
                        new CpuidRegs((r.eax() & ~0x00FF_0000) | (32 << 16), r.ebx(), r.ecx(), r.edx())) : l);
            }
            cpus.add(new CpuidSnapshot(0, leaves));
        }
        return new SimulatedPlatform(new Profile("skylake-narrow-pmc0", sky.processor(), false,
                new CpuidDump("test", cpus)));
    }

    @Test
    void aReadBackThatDiffersOnOneCpuRollsBackEveryCpuAlreadyWritten(@TempDir Path journal) throws IOException {
        try (SimulatedPlatform p = narrowCountersOnCpu0()) {
            WriteResult.Failed f = assertThrows(WriteResult.Failed.class, () -> p.msr().write(
                    WriteRequest.value(0, "IA32_PMC0", 0x8000_0000L).then(WriteRequest.value(1, "IA32_PMC0", 0x8000_0000L))
                            .then(WriteRequest.value(2, "IA32_PMC0", 0x8000_0000L)).journal(journal)));
            assertEquals(Cause.VERIFICATION_FAILED, f.cause());
            assertTrue(f.getMessage().startsWith("CPU 1 IA32_PMC0 0x000000c1: wrote 0x0000000080000000 but read back"),
                    f.getMessage());
            List<WriteResult.Write> w = f.result().writes();
            assertEquals(3, w.size());
            assertTrue(w.get(0).written() && w.get(0).verified() && w.get(0).rolledBack(), w.get(0).toString());
            assertTrue(w.get(1).written() && !w.get(1).verified() && w.get(1).rolledBack(), w.get(1).toString());
            assertFalse(w.get(2).written(), "stopped at the failing CPU");
            assertFalse(f.result().allWritten());
            assertEquals(List.of("all or nothing: restored CPU 1 IA32_PMC0 to 0x0000000000000000",
                    "all or nothing: restored CPU 0 IA32_PMC0 to 0x0000000000000000"), f.result().notes());
            for (int cpu = 0; cpu < 3; cpu++) {
                assertEquals(0, p.msr().read(cpu, IA32_PMC0), "CPU " + cpu + " as before");
            }
            // the journal holds the writes and their rollbacks, cpu 0, 1, then 1, 0
            List<String> lines = Files.readAllLines(journal.resolve("msr-journal.jsonl"));
            assertEquals(4, lines.size(), lines.toString());
            assertTrue(lines.get(2).contains("\"rollback\":true") && lines.get(2).contains("\"cpu\":1"), lines.get(2));
            assertTrue(lines.get(3).contains("\"rollback\":true") && lines.get(3).contains("\"cpu\":0"), lines.get(3));
        }
    }

    @Test
    void threadsWritingThroughOneJournalGetABatchEachAndTheirUndosFindTheirOwn(@TempDir Path journal) throws Exception {
        int threads = 4;
        int rounds = 5;
        List<Thread> all = new ArrayList<>();
        List<Throwable> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        List<Long> batches = java.util.Collections.synchronizedList(new ArrayList<>());
        for (int t = 0; t < threads; t++) {
            int cpu = t;
            all.add(Thread.ofPlatform().start(() -> {
                try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
                    for (int i = 0; i < rounds; i++) {
                        WriteResult r = p.msr().write(WriteRequest.field(cpu, "IA32_DEBUGCTL", "BTF", 1).journal(journal));
                        batches.add(r.batch().getAsLong());
                        WriteResult u = p.msr().write(WriteRequest.undo(r.batch().getAsLong()).journal(journal));
                        batches.add(u.batch().getAsLong());
                        assertEquals(0, p.msr().read(cpu, 0x1D9));
                    }
                } catch (Throwable e) {
                    failures.add(e);
                }
            }));
        }
        for (Thread t : all) {
            t.join();
        }
        assertEquals(List.of(), failures);
        assertEquals(threads * rounds * 2, batches.stream().distinct().count(), "unique batch ids: " + batches);
        List<String> lines = Files.readAllLines(journal.resolve("msr-journal.jsonl"));
        assertEquals(threads * rounds * 2, lines.size());
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            HwException none = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.undoLast().journal(journal)));
            assertTrue(none.getMessage().startsWith("nothing to undo"), none.getMessage());
        }
    }

    @Test
    void savedRegistersComeBackThroughARestore(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("saved.json");
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            p.msr().write(WriteRequest.field(List.of(0, 1), "IA32_DEBUGCTL", "BTF", 1).withoutJournal());
            p.msr().save(file, List.of(0, 1), List.of("IA32_DEBUGCTL", "0xc1"));
            MsrSaveFile saved = MsrSaveFile.read(file);
            assertEquals("sim:skylake", saved.backend());
            assertTrue(saved.simulated());
            assertEquals(List.of(new MsrSaveFile.Register(0, 0x1D9, "IA32_DEBUGCTL", 2), new MsrSaveFile.Register(0, 0xC1, "IA32_PMC0", 0),
                    new MsrSaveFile.Register(1, 0x1D9, "IA32_DEBUGCTL", 2), new MsrSaveFile.Register(1, 0xC1, "IA32_PMC0", 0)),
                    saved.registers());
            p.msr().write(WriteRequest.value(1, "IA32_DEBUGCTL", 0).then(WriteRequest.value(1, 0xC1, 5)).withoutJournal());
            WriteResult r = p.msr().write(WriteRequest.restore(file).journal(dir));
            assertEquals(2, r.writes().size(), r.toString());
            assertEquals(2, p.msr().read(1, 0x1D9));
            assertEquals(0, p.msr().read(1, 0xC1));
            HwException unknown = assertThrows(HwException.class, () -> p.msr().save(file, List.of(0), List.of("NO_SUCH_MSR")));
            assertEquals(Cause.BAD_INPUT, unknown.cause());
            assertEquals(saved, MsrSaveFile.read(file), "the file is as it was");
        }
    }

    @Test
    void aSaveFileIsRestoredCarefullyAndOnlyWhereValuesDiffer(@TempDir Path dir) throws IOException {
        Path saved = dir.resolve("saved.json");
        Files.writeString(saved, new MsrSaveFile("2026-01-01T00:00:00Z", "sim:skylake", true, List.of(
                new MsrSaveFile.Register(0, 0x1D9, "IA32_DEBUGCTL", 0x1),
                new MsrSaveFile.Register(1, 0x1D9, "IA32_DEBUGCTL", 0x0))).toJson());
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            WriteResult r = p.msr().write(WriteRequest.restore(saved).journal(dir));
            assertEquals(1, r.writes().size(), "CPU 1 already held its value: " + r);
            assertEquals(1, p.msr().read(0, 0x1D9));
            WriteResult back = p.msr().write(WriteRequest.undoLast().journal(dir));
            assertEquals(0, back.writes().getFirst().newValue());
            assertEquals(0, p.msr().read(0, 0x1D9));
            assertTrue(Files.readString(dir.resolve("msr-journal.jsonl")).contains("\"kind\":\"restore\""));
        }
        try (SimulatedPlatform p = SimulatedPlatform.of("alderlake")) {
            HwException other = assertThrows(HwException.class, () -> p.msr().write(WriteRequest.restore(saved).journal(dir)));
            assertEquals(Cause.BAD_INPUT, other.cause());
            assertEquals("restore it on the machine it came from, or add WriteRequest.force()", other.remedy().orElseThrow());
        }
    }
}
