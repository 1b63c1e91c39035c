package dev.hwtool.sim.record;

import dev.hwtool.api.BranchFilter;
import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.RecordingSummary;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.workload.Workloads;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SimulatedRecorderTest {

    static final String CALLTREE = "calltree seed=5 depth=5 fanout=2 calls=300";
    static final Map<String, Integer> DEPTH = Map.of("core2", 4, "nehalem", 16, "skylake", 32, "alderlake", 32,
            "haswell", 16);

    private static RecordTarget.Workload target(String spec) {
        return new RecordTarget.Workload(spec, Path.of(""));
    }

    private static Reference reference(String spec) {
        return Reference.of(Workloads.parse(spec, Path.of("")));
    }

    private static CollectingSink record(String profile, RecordRequest r, String spec) {
        CollectingSink sink = new CollectingSink();
        RecordingSummary s = ((SimulatedRecorder) SimulatedPlatform.of(profile).recorder()).record(r, target(spec), sink);
        assertEquals(1, sink.begins);
        assertEquals(0, sink.recordsBeforeBegin);
        assertEquals(sink.records.size(), s.records());
        assertEquals(sink.samples().size(), s.samples());
        assertEquals(0, s.exitStatus());
        assertTrue(s.elapsedNs() > 0);
        List<PerfRecord> all = sink.parsed();
        PerfRecord.Comm comm = (PerfRecord.Comm) all.getFirst();
        assertEquals(PerfRecordMisc.COMM_EXEC, comm.misc() & PerfRecordMisc.COMM_EXEC);
        assertEquals(SimulatedRecorder.PID, comm.pid());
        assertTrue(all.getLast() instanceof PerfRecord.Task t && t.type() == 4, "EXIT last");
        return sink;
    }

    private static List<long[]> stack(PerfRecord.Sample s) {
        List<long[]> out = new ArrayList<>();
        for (PerfBranchEntry e : s.branchStack().orElseThrow().entries()) {
            out.add(new long[] {e.from(), e.to()});
        }
        return out;
    }

    private static String show(List<long[]> l) {
        StringBuilder b = new StringBuilder();
        for (long[] x : l) {
            b.append(Long.toHexString(x[0])).append("->").append(Long.toHexString(x[1])).append(' ');
        }
        return b.toString();
    }

    @ParameterizedTest
    @ValueSource(strings = {"core2", "nehalem", "skylake", "alderlake"})
    void lbrAnyGivesTheLastBranchesEveryPeriod(String profile) {
        long period = 7;
        Reference ref = reference(CALLTREE);
        CollectingSink sink = record(profile, new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, period), CALLTREE);
        List<PerfRecord.Sample> samples = sink.samples();
        int n = ref.branches.size();
        assertEquals(n / period, samples.size(), "floor(branches / period) samples");
        int depth = DEPTH.get(profile);
        for (int k = 1; k <= samples.size(); k++) {
            PerfRecord.Sample s = samples.get(k - 1);
            int at = (int) (k * period);
            assertEquals(ref.branches.get(at - 1).to(), s.ip(), "ip = where the PMI returns to");
            assertEquals(SimulatedRecorder.PID, s.pid());
            List<long[]> expected = new ArrayList<>();
            for (int i = at - 1; i >= Math.max(0, at - depth); i--) {
                expected.add(new long[] {ref.branches.get(i).from(), ref.branches.get(i).to()});
            }
            assertEquals(show(expected), show(stack(s)), profile + " sample " + k);
            List<PerfBranchEntry> entries = s.branchStack().orElseThrow().entries();
            for (int i = 0; i < entries.size(); i++) {
                Reference.Branch b = ref.branches.get(at - 1 - i);
                PerfBranchEntry e = entries.get(i);
                assertEquals(b.type().perfBrType(), e.type(), "PERF_BR type");
                if (profile.equals("skylake") || profile.equals("nehalem") || profile.equals("alderlake")) {
                    // LBR_FMT 3+ / arch LBR with CPUID.1CH:ECX[0] carry the flag: predicted = !mispred.
                    assertEquals(b.mispredicted(), e.mispred(), profile + " sample " + k + " entry " + i);
                    assertEquals(!b.mispredicted(), e.predicted());
                } else {
                    assertTrue(!e.mispred() && !e.predicted(), "Core 2's LBR format has no flags");
                }
                if (profile.equals("skylake")) {
                    assertTrue(e.cycles() > 0, "LBR_INFO cycle counts (LBR_FMT 5)");
                }
            }
            assertTrue(s.branchStack().orElseThrow().hwIndex().isPresent(), "hw_idx with HW_INDEX");
        }
        assertTrue(samples.getLast().time() > samples.getFirst().time());
    }

    @ParameterizedTest
    @ValueSource(strings = {"core2", "nehalem", "skylake", "alderlake"})
    void lbrCondKeepsOnlyConditionalBranches(String profile) {
        Reference ref = reference(CALLTREE);
        CollectingSink sink = record(profile, new RecordRequest.Lbr(Privilege.USER, BranchFilter.COND, 11), CALLTREE);
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(ref.branches.size() / 11, samples.size());
        int depth = DEPTH.get(profile);
        for (int k = 1; k <= samples.size(); k++) {
            int at = k * 11;
            List<long[]> jccs = new ArrayList<>();
            for (int i = at - 1; i >= 0 && jccs.size() < depth; i--) {
                if (ref.branches.get(i).type() == BranchType.JCC) {
                    jccs.add(new long[] {ref.branches.get(i).from(), ref.branches.get(i).to()});
                }
            }
            List<long[]> got = stack(samples.get(k - 1));
            if (profile.equals("core2")) {
                // No LBR_SELECT: the 4 entries hold any branch, the kernel's software filter keeps the Jcc among them.
                List<long[]> lastFour = new ArrayList<>();
                for (int i = at - 1; i >= Math.max(0, at - depth); i--) {
                    if (ref.branches.get(i).type() == BranchType.JCC) {
                        lastFour.add(new long[] {ref.branches.get(i).from(), ref.branches.get(i).to()});
                    }
                }
                assertEquals(show(lastFour), show(got), "sample " + k);
            } else {
                assertEquals(show(jccs), show(got), profile + " sample " + k);
            }
            for (PerfBranchEntry e : samples.get(k - 1).branchStack().orElseThrow().entries()) {
                assertEquals("COND", e.typeName());
            }
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"haswell", "skylake", "alderlake"})
    void callStackIsTheCurrentCallChain(String profile) {
        Reference ref = reference(CALLTREE);
        CollectingSink sink = record(profile, new RecordRequest.Lbr(Privilege.USER, BranchFilter.CALL_STACK, 5), CALLTREE);
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(ref.branches.size() / 5, samples.size());
        int depth = DEPTH.get(profile);
        int nonEmpty = 0;
        for (int k = 1; k <= samples.size(); k++) {
            List<long[]> open = ref.openCalls(k * 5);
            List<long[]> expected = open.subList(0, Math.min(depth, open.size()));
            assertEquals(show(expected), show(stack(samples.get(k - 1))), profile + " sample " + k);
            nonEmpty += expected.isEmpty() ? 0 : 1;
        }
        assertTrue(nonEmpty > samples.size() / 2, "the call tree is mostly inside calls");
        long bst = sink.info.events().getFirst().attr().branchSampleType();
        assertEquals(PerfBranchSample.CALL_STACK, bst & PerfBranchSample.CALL_STACK);
    }

    @ParameterizedTest
    @ValueSource(strings = {"core2", "nehalem", "sandybridge"})
    void callStackBeforeHaswellIsUnsupportedBeforeBegin(String profile) {
        CollectingSink sink = new CollectingSink();
        HwException e = assertThrows(HwException.class, () -> ((SimulatedRecorder) SimulatedPlatform.of(profile).recorder())
                .record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.CALL_STACK, 5), target(CALLTREE), sink));
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertTrue(e.getMessage().contains(profile), e.getMessage());
        assertEquals(0, sink.begins);
        assertTrue(sink.records.isEmpty());
    }

    @Test
    void lbrWithoutLbrIsUnsupported() {
        CollectingSink sink = new CollectingSink();
        HwException e = assertThrows(HwException.class,
                () -> ((SimulatedRecorder) SimulatedPlatform.of("amd-epyc-kvm-guest").recorder())
                .record(new RecordRequest.Lbr(Privilege.USER,
                BranchFilter.ANY, 100), target(CALLTREE), sink));
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertEquals(0, sink.begins);
    }

    @ParameterizedTest
    @ValueSource(strings = {"core2", "nehalem", "skylake", "alderlake"})
    void btsSamplesAreEveryTakenBranchInOrderWithoutLoss(String profile) {
        String spec = "loop seed=3 iterations=2000 body=4"; // 79999 branches: 31 buffer fills of 2560
        Reference ref = reference(spec);
        CollectingSink sink = record(profile, new RecordRequest.Bts(Privilege.USER), spec);
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(ref.branches.size(), samples.size(), "no loss at 64 KiB with draining");
        for (int i = 0; i < samples.size(); i++) {
            PerfRecord.Sample s = samples.get(i);
            Reference.Branch b = ref.branches.get(i);
            if (s.ip() != b.from() || s.addr() != b.to()) {
                throw new AssertionError(profile + " sample " + i + ": " + Long.toHexString(s.ip()) + "->"
                        + Long.toHexString(s.addr()) + ", expected " + Long.toHexString(b.from()) + "->"
                        + Long.toHexString(b.to()));
            }
        }
        assertEquals(1, sink.info.events().getFirst().attr().samplePeriod());
        assertEquals(PerfSample.ADDR, sink.info.events().getFirst().attr().sampleType() & PerfSample.ADDR);
        assertEquals("branches:u", sink.info.events().getFirst().name());
    }

    @Test
    void branchesWithPeriodOneIsBtsAsOnIntel() {
        String spec = "loop seed=3 iterations=100 body=4";
        CollectingSink sink = record("skylake", new RecordRequest.Sampling(Privilege.USER, PerfType.HARDWARE,
                PerfCount.HW_BRANCH_INSTRUCTIONS, 1), spec);
        Reference ref = reference(spec);
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(3999, samples.size());
        for (int i = 0; i < samples.size(); i++) {
            assertEquals(ref.branches.get(i).from(), samples.get(i).ip());
        }
        HwException e = assertThrows(HwException.class, () -> ((SimulatedRecorder) SimulatedPlatform.of("skylake").recorder())
                .record(new RecordRequest.Sampling(Privilege.ALL, PerfType.RAW, 0xC4, 1), target(spec),
                        new CollectingSink()));
        assertEquals(Cause.UNSUPPORTED, e.cause());
    }

    @Test
    void btsSkipsKernelBranchesByPrivilege() {
        String spec = "loop seed=3 iterations=50 body=4 cpl=0";
        CollectingSink sink = record("skylake", new RecordRequest.Bts(Privilege.USER), spec);
        assertEquals(0, sink.samples().size(), "BTS_OFF_OS: ring-0 branches are not stored");
    }

    @Test
    void btsForKernelIsRefusedAsTheKernelDoes() {
        CollectingSink sink = new CollectingSink();
        HwException e = assertThrows(HwException.class, () -> ((SimulatedRecorder) SimulatedPlatform.of("skylake").recorder())
                .record(new RecordRequest.Bts(Privilege.ALL), target(CALLTREE), sink));
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertTrue(e.getMessage().contains("only allowed for user mode"), e.getMessage());
        assertEquals(0, sink.begins);
        HwException amd = assertThrows(HwException.class,
                () -> ((SimulatedRecorder) SimulatedPlatform.of("amd-epyc-kvm-guest").recorder())
                .record(new RecordRequest.Bts(Privilege.USER),
                target(CALLTREE), new CollectingSink()));
        assertEquals(Cause.UNSUPPORTED, amd.cause());
    }

    @ParameterizedTest
    @ValueSource(strings = {"core2", "nehalem", "skylake", "alderlake"})
    void samplingInstructionsEveryPeriod(String profile) {
        String spec = "loop seed=3 iterations=100 body=4"; // 24500 instructions (workload-loop-counts.hwsim)
        CollectingSink sink = record(profile, new RecordRequest.Sampling(Privilege.USER, PerfType.HARDWARE,
                PerfCount.HW_INSTRUCTIONS, 1000), spec);
        List<PerfRecord.Sample> samples = sink.samples();
        assertEquals(24, samples.size(), "floor(24500 / 1000)");
        int bsp = SimulatedPlatform.of(profile).machine().cpuNumbers().getFirst();
        for (PerfRecord.Sample s : samples) {
            assertEquals(1000, s.period());
            assertEquals(bsp, s.cpu());
            assertTrue(s.ip() >= 0x401000 && s.ip() < 0x402000, Long.toHexString(s.ip()));
        }
        assertEquals("instructions:u", sink.info.events().getFirst().name());
    }

    @Test
    void softwareEventsAndCommandsAreRefused() {
        SimulatedRecorder r = (SimulatedRecorder) SimulatedPlatform.of("skylake").recorder();
        HwException sw = assertThrows(HwException.class, () -> r.record(new RecordRequest.Sampling(Privilege.USER,
                PerfType.SOFTWARE, 0, 1000), target(CALLTREE), new CollectingSink()));
        assertEquals(Cause.UNSUPPORTED, sw.cause());
        assertTrue(sw.getMessage().contains("no software events"));
        HwException cmd = assertThrows(HwException.class, () -> r.record(new RecordRequest.Bts(Privilege.USER),
                new RecordTarget.Command(List.of("ls")), new CollectingSink()));
        assertEquals(Cause.BAD_INPUT, cmd.cause());
        assertTrue(cmd.getMessage().contains("calltree depth=4"), cmd.getMessage());
        assertTrue(!cmd.getMessage().contains("\n"));
        assertEquals("simulated (profile skylake)", r.backend());
    }

    @Test
    void scenariosRunTheirWorkloadLinesOnly(@TempDir Path dir) throws Exception {
        CollectingSink sink = record("skylake", new RecordRequest.Bts(Privilege.USER), "builtin:workload-loop-counts");
        assertEquals(3999, sink.samples().size(), "the scenario's loop, its wrmsr lines not run");
        Path none = dir.resolve("none.hwsim");
        Files.writeString(none, "# nothing to run\nprofile skylake\nwrmsr IA32_DEBUGCTL.LBR 1\n");
        HwException e = assertThrows(HwException.class, () -> ((SimulatedRecorder) SimulatedPlatform.of("skylake").recorder())
                .record(new RecordRequest.Bts(Privilege.USER), new RecordTarget.Workload("none.hwsim", dir),
                        new CollectingSink()));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertTrue(e.getMessage().contains("no 'workload' line"), e.getMessage());
    }

    @Test
    void theRecorderLeavesTheRegistersAsItFoundThem() {
        SimulatedPlatform p = SimulatedPlatform.of("skylake");
        SimulatedRecorder r = (SimulatedRecorder) p.recorder();
        r.record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 50), target(CALLTREE), new CollectingSink());
        r.record(new RecordRequest.Bts(Privilege.USER), target(CALLTREE), new CollectingSink());
        var cpu = p.machine().cpus().getFirst();
        assertEquals(0, cpu.rdmsr(0x1D9), "IA32_DEBUGCTL");
        assertEquals(0, cpu.rdmsr(0x186), "IA32_PERFEVTSEL0");
        // And a second recording on the same platform gives the same samples as a fresh one.
        CollectingSink again = new CollectingSink();
        r.record(new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 50), target(CALLTREE), again);
        CollectingSink fresh = record("skylake", new RecordRequest.Lbr(Privilege.USER, BranchFilter.ANY, 50), CALLTREE);
        assertEquals(fresh.samples().size(), again.samples().size());
        for (int i = 0; i < fresh.samples().size(); i++) {
            assertEquals(show(stack(fresh.samples().get(i))), show(stack(again.samples().get(i))));
        }
    }
}
