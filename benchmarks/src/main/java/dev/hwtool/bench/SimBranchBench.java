package dev.hwtool.bench;

import dev.hwtool.api.BranchType;
import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.cpu.BtsBufferView;
import dev.hwtool.sim.cpu.DsInterruptRoutine;
import dev.hwtool.sim.cpu.LbrSnapshot;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.cpu.Pmi;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Simulated branches per second on one thread (issue 4's targets: 100 M/s with LBR only, 30 M/s
 * with LBR + BTS + 4 counters + PMIs), and a bare-JVM reference taken in the same run: the
 * least work any LBR model must do per branch — write from/to into a ring and bump an index.
 *
 * <p>Each invocation retires {@link #BATCH} branches taken from a precomputed, seeded mix of
 * types, CPLs and mispredicts (so the filters' branches are not all predictable). Skylake
 * profile: 32-entry LBR with LBR_INFO, v4 perfmon.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SimBranchBench {

    static final int BATCH = 4096;
    static final long DEBUGCTL_LBR = 1;
    static final long TR_BTS = 0xC0;
    static final long FREEZE_BOTH = 0x1800;
    /** PERFEVTSEL: USR, OS, EN (+INT for the sampling counter). */
    static final long EVTSEL = (1L << 16) | (1L << 17) | (1L << 22);
    static final long INT = 1L << 20;
    static final long SAMPLE_PERIOD = 10_007;

    /** A seeded mix of branches, the same for every state. */
    @State(Scope.Thread)
    public static class Trace {
        final long[] from = new long[BATCH];
        final long[] to = new long[BATCH];
        final BranchType[] type = new BranchType[BATCH];
        final int[] cpl = new int[BATCH];
        final boolean[] mispredicted = new boolean[BATCH];

        @Setup(Level.Trial)
        public void setUp() {
            SplittableRandom r = new SplittableRandom(42);
            BranchType[] types = {BranchType.JCC, BranchType.JCC, BranchType.JCC, BranchType.NEAR_REL_CALL,
                    BranchType.NEAR_RET, BranchType.NEAR_REL_JMP, BranchType.NEAR_IND_JMP, BranchType.NEAR_IND_CALL};
            for (int i = 0; i < BATCH; i++) {
                from[i] = 0x401000 + r.nextInt(1 << 16);
                to[i] = 0x401000 + r.nextInt(1 << 16);
                type[i] = types[r.nextInt(types.length)];
                cpl[i] = r.nextInt(8) == 0 ? 0 : 3;
                mispredicted[i] = r.nextInt(16) == 0;
            }
        }
    }

    /** LBR on (DEBUGCTL.LBR), nothing else. */
    @State(Scope.Thread)
    public static class LbrOnly {
        LogicalProcessor cpu;

        @Setup(Level.Trial)
        public void setUp() {
            cpu = new SimulatedPlatform(Profiles.resolve("skylake")).machine().cpu(0);
            cpu.wrmsr(0x1D9, DEBUGCTL_LBR);
        }
    }

    /**
     * LBR with freeze-on-PMI, BTS into a 64 KiB circular buffer whose threshold raises a PMI,
     * four counters (instructions, branches, mispredicts, cycles), the first sampling with INT
     * every {@link #SAMPLE_PERIOD} instructions, and the built-in DS interrupt routine, whose
     * listener reloads the sampling counter as a perf driver does and reads the LBR stack.
     */
    @State(Scope.Thread)
    public static class Everything {
        LogicalProcessor cpu;
        long drainedChecksum;

        @Setup(Level.Trial)
        public void setUp() {
            cpu = new SimulatedPlatform(Profiles.resolve("skylake")).machine().cpu(0);
            long ds = 0x10_0000;
            long buf = 0x20_0000;
            long size = 65536 / DsSaveArea.BTS_RECORD_SIZE * DsSaveArea.BTS_RECORD_SIZE;
            var mem = cpu.memory();
            mem.write64(ds + DsSaveArea.BTS_BUFFER_BASE, buf);
            mem.write64(ds + DsSaveArea.BTS_INDEX, buf);
            mem.write64(ds + DsSaveArea.BTS_ABSOLUTE_MAXIMUM, buf + size);
            mem.write64(ds + DsSaveArea.BTS_INTERRUPT_THRESHOLD, buf + size - 16 * DsSaveArea.BTS_RECORD_SIZE);
            cpu.wrmsr(0x600, ds);
            cpu.wrmsr(0x186, EVTSEL | INT | 0xC0);
            cpu.wrmsr(0x187, EVTSEL | 0xC4);
            cpu.wrmsr(0x188, EVTSEL | 0xC5);
            cpu.wrmsr(0x189, EVTSEL | 0x3C);
            cpu.wrmsr(0x4C1, -SAMPLE_PERIOD & 0xFFFF_FFFF_FFFFL);
            cpu.wrmsr(0x38F, 0xF);
            cpu.setPmiHandler(new DsInterruptRoutine(new DsInterruptRoutine.Listener() {
                @Override
                public void bts(LogicalProcessor c, BtsBufferView records) {
                    drainedChecksum += records.from(records.count() - 1);
                }

                @Override
                public void overflow(LogicalProcessor c, Pmi pmi, long status, LbrSnapshot lbr) {
                    c.wrmsr(0x4C1, -SAMPLE_PERIOD & 0xFFFF_FFFF_FFFFL);
                }
            }));
            cpu.wrmsr(0x1D9, DEBUGCTL_LBR | TR_BTS | FREEZE_BOTH);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void lbrOnly(LbrOnly s, Trace t) {
        LogicalProcessor cpu = s.cpu;
        for (int i = 0; i < BATCH; i++) {
            cpu.branch(t.from[i], t.to[i], t.type[i], t.cpl[i], t.mispredicted[i]);
        }
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void lbrBtsCountersPmi(Everything s, Trace t) {
        LogicalProcessor cpu = s.cpu;
        for (int i = 0; i < BATCH; i++) {
            cpu.branch(t.from[i], t.to[i], t.type[i], t.cpl[i], t.mispredicted[i]);
        }
    }

    /** The bare-JVM reference. */
    @State(Scope.Thread)
    public static class Ring {
        final long[] from = new long[32];
        final long[] to = new long[32];
        int tos;
    }

    @Benchmark
    @OperationsPerInvocation(BATCH)
    public void bareJvmRing(Ring r, Trace t) {
        for (int i = 0; i < BATCH; i++) {
            int k = (r.tos + 1) & 31;
            r.tos = k;
            r.from[k] = t.from[i];
            r.to[k] = t.to[i];
        }
    }
}
