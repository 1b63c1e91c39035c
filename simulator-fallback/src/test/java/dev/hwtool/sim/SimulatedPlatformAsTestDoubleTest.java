package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.Count;
import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.Recording;
import dev.hwtool.api.Recorder;
import dev.hwtool.api.WriteRequest;
import dev.hwtool.api.WriteResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The simulated platform as a test double: its careful writes keep to a journal of its own, the
 * caller's own Java code is never counted as zero, workloads run through public API, and
 * everything taken from it is refused once it is closed.
 */
class SimulatedPlatformAsTestDoubleTest {

    /** Where hwtool's own journal would be: it must stay empty. */
    @TempDir
    Path userState;

    @BeforeEach
    void userJournalHere() {
        System.setProperty("hwtool.state.dir", userState.toString());
    }

    @AfterEach
    void clear() {
        System.clearProperty("hwtool.state.dir");
    }

    @Test
    void aCarefulWriteGoesToThePlatformsOwnJournalNeverTheUsers() throws Exception {
        Path journal;
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            WriteResult r = p.msr().write(WriteRequest.field(2, "IA32_DEBUGCTL", "LBR", 1));
            assertTrue(r.allWritten() && r.simulated(), r.toString());
            journal = r.journal().orElseThrow();
            assertEquals(p.journalDirectory(), journal);
            assertFalse(journal.startsWith(userState), journal.toString());
            assertTrue(Files.readString(journal.resolve("msr-journal.jsonl")).contains("\"backend\":\"sim:skylake\""));
            // undo by the result alone, and by the batch id (the platform's journal again)
            p.msr().write(WriteRequest.undo(r));
            assertEquals(0, p.msr().readField(2, "IA32_DEBUGCTL", "LBR"));
            WriteResult again = p.msr().write(WriteRequest.field(2, "IA32_DEBUGCTL", "LBR", 1));
            p.msr().write(WriteRequest.undo(again.batch().getAsLong()));
            assertEquals(0, p.msr().read(2, "IA32_DEBUGCTL"));
        }
        try (var files = Files.list(userState)) {
            assertEquals(0, files.count(), "the user's state directory is untouched");
        }
        assertFalse(Files.exists(journal), "the platform's journal goes with it");
    }

    @Test
    void eachPlatformHasItsOwnJournalAndAFallbackToo() throws Exception {
        try (SimulatedPlatform a = SimulatedPlatform.of("skylake"); SimulatedPlatform b = SimulatedPlatform.of("skylake");
             Platform fallback = Platform.open(Platform.Options.defaults().require(
                     dev.hwtool.testing.Preconditions.Hardware.LBR.present() ? dev.hwtool.api.Facility.RDPMC
                             : dev.hwtool.api.Facility.LBR_PERF).fallback("skylake"))) {
            WriteResult ra = a.msr().write(WriteRequest.value(0, "IA32_DEBUGCTL", 1));
            WriteResult rb = b.msr().write(WriteRequest.value(0, "IA32_DEBUGCTL", 1));
            WriteResult rf = fallback.msr().write(WriteRequest.value(0, "IA32_DEBUGCTL", 1));
            assertEquals(Platform.Kind.SIMULATED, fallback.kind());
            assertEquals(1, ra.batch().getAsLong());
            assertEquals(1, rb.batch().getAsLong());
            assertEquals(1, rf.batch().getAsLong());
            assertNotEquals(ra.journal(), rb.journal());
            assertNotEquals(ra.journal(), rf.journal());
            // a's batch asked of b: the hint says the batch is in another journal
            HwException other = assertThrows(HwException.class, () -> b.msr().write(WriteRequest.undo(2)));
            assertTrue(other.getMessage().contains("another journal"), other.getMessage());
        }
        try (var files = java.nio.file.Files.list(userState)) {
            assertEquals(0, files.count());
        }
    }

    @Test
    void theCallersOwnCodeIsNotCountedAsZero() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake"); Counters c = p.counters("instructions", "branches")) {
            c.start();
            long x = 0;
            for (int i = 0; i < 100_000; i++) {
                x += i * 31L;
            }
            Counts n = c.stop();
            assertTrue(x != 0);
            for (Count k : n.counts()) {
                assertFalse(k.supported(), k.toString());
                HwException e = assertThrows(HwException.class, k::value);
                assertEquals(Cause.UNSUPPORTED, e.cause());
                assertTrue(e.getMessage().contains("not counted: the simulator counts only simulated work"), e.getMessage());
                assertTrue(k.toString().startsWith(k.event() + ": not counted"), k.toString());
            }
        }
    }

    @Test
    void aWorkloadRunsThroughPublicApiAndIsCounted() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake"); Counters c = p.counters("instructions", "branches")) {
            c.start();
            SimulatedPlatform.Ran ran = p.run("calltree depth=3 calls=50");
            Counts n = c.stop();
            assertTrue(ran.workload().startsWith("calltree seed="), ran.workload());
            assertTrue(ran.branches() > 50 && ran.instructions() > ran.branches(), ran.toString());
            assertEquals(ran.instructions(), n.value("instructions"));
            assertEquals(ran.branches(), n.value("branches"));
            assertEquals(Count.Unit.EVENTS, n.get("instructions").unit());
            HwException bad = assertThrows(HwException.class, () -> p.run("spiral depth=3"));
            assertEquals(Cause.BAD_INPUT, bad.cause());
        }
    }

    @Test
    void aWorkloadRecordsOnTheLbr() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            try (Recording r = p.recorder().record(new RecordRequest.Lbr(RecordRequest.Privilege.USER,
                    dev.hwtool.api.BranchFilter.ANY, 100), p.workload("calltree depth=3 calls=50"))) {
                assertTrue(r.summary().samples() >= 1, "a sample with a branch stack: " + r.summary());
                assertTrue(r.hottestBranches(1).getFirst().count() > 0, r.hottestBranches(1).toString());
            }
        }
    }

    @Test
    void everythingTakenFromAClosedPlatformIsRefused() {
        SimulatedPlatform p = SimulatedPlatform.of("skylake");
        MsrAccess msr = p.msr();
        Counters c = p.counters("instructions");
        Recorder rec = p.recorder();
        c.start();
        p.close();
        for (var call : java.util.List.<org.junit.jupiter.api.function.Executable>of(
                () -> msr.read(0, 0x1d9), () -> msr.write(0, 0x1d9, 1), msr::cpus, () -> msr.read(0, "IA32_DEBUGCTL"),
                () -> msr.write(WriteRequest.field(0, "IA32_DEBUGCTL", "LBR", 1)), c::stop, c::read,
                () -> rec.record(new RecordRequest.Bts(RecordRequest.Privilege.USER), new dev.hwtool.api.RecordTarget.Workload(
                        "loop", Path.of(".")), Path.of(System.getProperty("java.io.tmpdir"), "never-" + ProcessHandle.current().pid() + ".data")))) {
            HwException e = assertThrows(HwException.class, call);
            assertEquals(Cause.UNSUPPORTED, e.cause());
            assertTrue(e.getMessage().contains("belongs to a closed platform (simulator, profile skylake"), e.getMessage());
        }
        IllegalStateException own = assertThrows(IllegalStateException.class, p::msr);
        assertTrue(own.getMessage().contains("closed"), own.getMessage());
    }

    /** A user's own MsrAccess, around the platform's: named reads work through the contract alone. */
    record Logging(MsrAccess inner, java.util.List<String> log) implements MsrAccess {
        @Override
        public java.util.List<Integer> cpus() {
            return inner.cpus();
        }

        @Override
        public long read(int cpu, int msr) {
            log.add("rdmsr " + cpu + " 0x" + Integer.toHexString(msr));
            return inner.read(cpu, msr);
        }

        @Override
        public void write(int cpu, int msr, long value) {
            inner.write(cpu, msr, value);
        }

        @Override
        public Origin origin() {
            return inner.origin();
        }

        @Override
        public void close() {
        }
    }

    /**
     * A careful write through a user's MsrAccess is checked against the CPUID of the platform the
     * access came from, and journals in that platform's journal: here a simulated Core 2, which
     * has no MSR_LBR_SELECT (its LBR stack at 40H has no filter: lbr.c, SDM Vol. 3B 17.4.8), refuses the write
     * whatever the host is; the skylake it is then borrowed from accepts it. Before origin(), any
     * access not the backend's own was checked against the host's CPUID and journaled as "hw" in
     * the user's journal.
     */
    @Test
    void carefulWritesThroughAUsersOwnMsrAccessUseItsPlatformsCpuid() {
        try (SimulatedPlatform core2 = SimulatedPlatform.of("core2"); SimulatedPlatform skylake = SimulatedPlatform.of("skylake")) {
            Logging onCore2 = new Logging(core2.msr(), new java.util.ArrayList<>());
            HwException refused = assertThrows(HwException.class,
                    () -> onCore2.write(WriteRequest.value(0, "MSR_LBR_SELECT", 1)));
            assertEquals(Cause.UNSUPPORTED, refused.cause(), refused.getMessage());
            // the catalog's view of the CPU reads IA32_PERF_CAPABILITIES (through the user's access);
            // the refused register itself is never read
            assertFalse(onCore2.log().contains("rdmsr 0 0x1c8"), onCore2.log().toString());

            Logging onSkylake = new Logging(skylake.msr(), new java.util.ArrayList<>());
            WriteResult r = onSkylake.write(WriteRequest.value(0, "MSR_LBR_SELECT", 1));
            assertTrue(r.allWritten() && r.simulated(), r.toString());
            assertEquals(1, skylake.msr().read(0, 0x1c8));
            assertTrue(r.journal().orElseThrow().startsWith(skylake.journalDirectory()), r.journal() + " is the simulator's");
            assertTrue(onSkylake.log().contains("rdmsr 0 0x1c8"), "the old value was read through the user's access");
            onSkylake.write(WriteRequest.undo(r));
            assertEquals(0, skylake.msr().read(0, 0x1c8));
        }
    }

    @Test
    void namedReadsThroughAUsersOwnMsrAccess() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake")) {
            p.msr().write(3, 0x1d9, 0x3);                        // DEBUGCTL.LBR and BTF
            Logging mine = new Logging(p.msr(), new java.util.ArrayList<>());
            assertEquals(3, mine.read(3, "IA32_DEBUGCTL"));
            assertEquals(1, mine.readField(3, "IA32_DEBUGCTL", "BTF"));
            assertEquals(0, mine.readField(3, "IA32_DEBUGCTL", "TR"));
            assertEquals(java.util.List.of("rdmsr 3 0x1d9", "rdmsr 3 0x1d9", "rdmsr 3 0x1d9"), mine.log());
            HwException unknown = assertThrows(HwException.class, () -> mine.read(0, "IA32_NOPE"));
            assertEquals(Cause.BAD_INPUT, unknown.cause());
        }
    }

    @Test
    void stopWithoutStartIsAnError() {
        try (SimulatedPlatform p = SimulatedPlatform.of("skylake"); Counters c = p.counters("instructions")) {
            IllegalStateException e = assertThrows(IllegalStateException.class, c::stop);
            assertEquals("stop() before start(): nothing has been counted yet", e.getMessage());
        }
    }
}
