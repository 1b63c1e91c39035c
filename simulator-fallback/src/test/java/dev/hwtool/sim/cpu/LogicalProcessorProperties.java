package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.workload.CallTreeWorkload;
import dev.hwtool.sim.workload.LoopWorkload;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

import java.util.ArrayList;
import java.util.List;

import static dev.hwtool.sim.cpu.Machines.BUF;
import static dev.hwtool.sim.cpu.Machines.DS;
import static dev.hwtool.sim.cpu.Machines.R;
import static dev.hwtool.sim.cpu.Machines.btsIndex;
import static dev.hwtool.sim.cpu.Machines.cpu;
import static dev.hwtool.sim.cpu.Machines.msr;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Invariants of the simulated CPU over arbitrary sequences of retirements and register writes. */
class LogicalProcessorProperties {

    /** One step a property applies to a CPU. */
    sealed interface Op permits Branch, Instructions, Stall, Write {
        void apply(LogicalProcessor cpu);
    }

    record Branch(long from, long to, BranchType type, int cpl, boolean mispredicted) implements Op {
        public void apply(LogicalProcessor cpu) {
            cpu.branch(from, to, type, cpl, mispredicted);
        }
    }

    record Instructions(long n, int cpl) implements Op {
        public void apply(LogicalProcessor cpu) {
            cpu.instructions(n, cpl);
        }
    }

    record Stall(long n) implements Op {
        public void apply(LogicalProcessor cpu) {
            cpu.cycles(n);
        }
    }

    /** A WRMSR that may #GP (reserved bits): a fault changes nothing, which the properties also check. */
    record Write(String register, long value) implements Op {
        public void apply(LogicalProcessor cpu) {
            try {
                cpu.wrmsr(msr(register), value);
            } catch (HwException gp) {
                // #GP(0): the register keeps its value
            }
        }
    }

    static final String[] CONTROL_REGISTERS = {"IA32_DEBUGCTL", "MSR_LBR_SELECT", "IA32_PERFEVTSEL0",
            "IA32_PERFEVTSEL1", "IA32_PERF_GLOBAL_CTRL", "IA32_PERF_GLOBAL_OVF_CTRL", "IA32_FIXED_CTR_CTRL",
            "MSR_LASTBRANCH_TOS", "IA32_A_PMC0", "IA32_PMC1"};

    @Provide
    Arbitrary<List<Op>> programs() {
        Arbitrary<Op> branch = Combinators.combine(Arbitraries.longs().between(1, 0xFFFF),
                Arbitraries.longs().between(1, 0xFFFF), Arbitraries.of(BranchType.class),
                Arbitraries.integers().between(0, 3), Arbitraries.of(true, false))
                .as((f, t, ty, cpl, m) -> new Branch(f, t, ty, cpl, m));
        Arbitrary<Op> instructions = Combinators.combine(Arbitraries.longs().between(0, 300),
                Arbitraries.integers().between(0, 3)).as(Instructions::new);
        Arbitrary<Op> stall = Arbitraries.longs().between(0, 50).map(Stall::new);
        Arbitrary<Long> values = Arbitraries.oneOf(
                Arbitraries.longs(),
                Arbitraries.longs().between(0, 0x3FF),
                Arbitraries.of(0x1L, 0x1801L, 0x19C1L, 0x5300C0L, 0x1530C4L, 0x4300C5L, 0xFL, 0x3L, 0x333L,
                        (1L << 48) - 3, 0xC000_0000_0000_000FL));
        Arbitrary<Op> write = Combinators.combine(Arbitraries.of(CONTROL_REGISTERS), values).as(Write::new);
        return Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(6, branch), net.jqwik.api.Tuple.of(2, instructions),
                net.jqwik.api.Tuple.of(1, stall), net.jqwik.api.Tuple.of(3, write))
                .list().ofMaxSize(80);
    }

    @Property(tries = 150)
    void tosStaysBelowTheDepth(@ForAll("programs") List<Op> program,
                               @ForAll("legacyLbrProfiles") String profile) {
        LogicalProcessor cpu = cpu(profile);
        cpu.wrmsr(msr("IA32_DEBUGCTL"), 1);
        for (Op op : program) {
            op.apply(cpu);
            long tos = cpu.rdmsr(msr("MSR_LASTBRANCH_TOS"));
            assertTrue(tos >= 0 && tos < cpu.lbrDepth(), profile + ": TOS " + tos + " after " + op);
        }
    }

    @Provide
    Arbitrary<String> legacyLbrProfiles() {
        return Arbitraries.of("core2", "silvermont", "nehalem", "haswell", "skylake", "goldmont", "goldmont-plus");
    }

    @Property(tries = 200)
    void theBtsIndexStaysBetweenBaseAndAbsoluteMaximum(@ForAll("programs") List<Op> program,
                                                       @ForAll @IntRange(min = 2, max = 40) int records,
                                                       @ForAll @IntRange(min = 0, max = 23) int slack,
                                                       @ForAll @IntRange(min = 0, max = 45) int threshold,
                                                       @ForAll boolean btint, @ForAll boolean builtinHandler) {
        LogicalProcessor cpu = cpu("skylake");
        SimMemory m = cpu.memory();
        long max = BUF + records * R + slack;
        m.write64(DS, BUF);
        m.write64(DS + 8, BUF);
        m.write64(DS + 16, max);
        m.write64(DS + 24, BUF + threshold * R);
        cpu.wrmsr(msr("IA32_DS_AREA"), DS);
        if (builtinHandler) {
            cpu.setPmiHandler(new DsInterruptRoutine());
        }
        long debugctl = 0xC0 | (btint ? 0x100 : 0);
        cpu.wrmsr(msr("IA32_DEBUGCTL"), debugctl);
        for (Op op : program) {
            if (op instanceof Write w && w.register().equals("IA32_DEBUGCTL")) {
                continue; // keep BTS on
            }
            op.apply(cpu);
            long index = btsIndex(cpu);
            assertTrue(Long.compareUnsigned(BUF, index) <= 0 && Long.compareUnsigned(index, max) <= 0,
                    "index 0x" + Long.toHexString(index) + " outside 0x" + Long.toHexString(BUF) + "..0x"
                            + Long.toHexString(max) + " after " + op);
        }
    }

    @Property(tries = 300)
    void countersChangeOnlyByCountingWritingOrFreezing(@ForAll("programs") List<Op> program) {
        LogicalProcessor cpu = cpu("skylake");
        cpu.wrmsr(msr("IA32_DEBUGCTL"), 0x1801); // LBR + both freezes
        for (Op op : program) {
            long[] before = counters(cpu);
            boolean[] counting = counting(cpu);
            long cycles = cpu.stats().cycles();
            op.apply(cpu);
            long spent = cpu.stats().cycles() - cycles;
            long[] after = counters(cpu);
            for (int i = 0; i < before.length; i++) {
                if (before[i] == after[i]) {
                    continue;
                }
                boolean written = op instanceof Write w && w.register().matches("IA32_(A_)?PMC" + i);
                long delta = (after[i] - before[i]) & ((1L << 48) - 1);
                assertTrue(written || counting[i] && delta <= spent,
                        "PMC" + i + " went 0x" + Long.toHexString(before[i]) + " -> 0x" + Long.toHexString(after[i])
                                + " by " + op + " (counting " + counting[i] + ", " + spent + " cycles)");
            }
        }
    }

    private static long[] counters(LogicalProcessor cpu) {
        long[] v = new long[cpu.gpCounters()];
        for (int i = 0; i < v.length; i++) {
            v[i] = cpu.rdmsr(msr("IA32_PMC" + i));
        }
        return v;
    }

    /** EN, the GLOBAL_CTRL bit and !CTR_FRZ: the SDM's condition for a counter to count (18.2.4.1). */
    private static boolean[] counting(LogicalProcessor cpu) {
        long ctrl = cpu.rdmsr(msr("IA32_PERF_GLOBAL_CTRL"));
        boolean frozen = (cpu.rdmsr(msr("IA32_PERF_GLOBAL_STATUS")) & 1L << 59) != 0;
        boolean[] v = new boolean[cpu.gpCounters()];
        for (int i = 0; i < v.length; i++) {
            v[i] = (cpu.rdmsr(msr("IA32_PERFEVTSEL" + i)) & 1L << 22) != 0 && (ctrl >>> i & 1) != 0 && !frozen;
        }
        return v;
    }

    @Property(tries = 60)
    void theSameProgramGivesTheSameMachineState(@ForAll("programs") List<Op> program,
                                                @ForAll long seed, @ForAll boolean calls) {
        assertEquals(snapshot(program, seed, calls), snapshot(program, seed, calls));
    }

    private static List<Object> snapshot(List<Op> program, long seed, boolean calls) {
        LogicalProcessor cpu = cpu("skylake");
        Machines.btsBuffer(cpu, 30, 20);
        cpu.setPmiHandler(new DsInterruptRoutine());
        cpu.wrmsr(msr("IA32_DEBUGCTL"), 0x19C1);
        for (Op op : program) {
            op.apply(cpu);
        }
        if (calls) {
            new CallTreeWorkload(seed, 6, 3, 500, 0x401000, 3).run(cpu);
        } else {
            new LoopWorkload(seed, 300, 5, 0x401000, 3).run(cpu);
        }
        List<Object> state = new ArrayList<>();
        state.add(cpu.stats());
        state.add(cpu.lbr());
        state.add(cpu.btsRecords());
        state.add(cpu.pmis());
        for (long c : counters(cpu)) {
            state.add(c);
        }
        return state;
    }

    // ---- PEBS through the DS save area (SDM Vol. 3B 17.4.9, "PEBS CounterX Reset") ----------

    static final long PEBS_BUF = 0x40_0000;

    @Provide
    Arbitrary<String> pebsProfiles() {
        return Arbitraries.of("core2", "nehalem", "haswell", "skylake", "goldmont", "icelake");
    }

    /** PEBS on PMC0 (branches) and, where the model allows, PMC1 (instructions), both reset to -period. */
    private static LogicalProcessor pebsCpu(String profile, int records, int slack, int thresholdRecords, int period) {
        LogicalProcessor cpu = cpu(profile);
        SimMemory m = cpu.memory();
        int size = cpu.pebsRecordSize();
        m.write64(DS + 0x20, PEBS_BUF);
        m.write64(DS + 0x28, PEBS_BUF);
        m.write64(DS + 0x30, PEBS_BUF + (long) records * size + slack);
        m.write64(DS + 0x38, PEBS_BUF + (long) thresholdRecords * size);
        m.write64(DS + 0x40, -period);
        m.write64(DS + 0x48, -period);
        cpu.wrmsr(msr("IA32_DS_AREA"), DS);
        cpu.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0);
        cpu.wrmsr(msr("IA32_PERFEVTSEL0"), 0x4300C4);
        cpu.wrmsr(msr("IA32_PERFEVTSEL1"), 0x4300C0);
        try {
            cpu.wrmsr(msr("IA32_PEBS_ENABLE"), 0x3);
        } catch (HwException pmc0Only) {
            cpu.wrmsr(msr("IA32_PEBS_ENABLE"), 0x1);
        }
        cpu.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0x3);
        return cpu;
    }

    @Property(tries = 200)
    void thePebsIndexNeverPassesTheAbsoluteMaximumAndRecordsNeverOverlap(
            @ForAll("programs") List<Op> program, @ForAll("pebsProfiles") String profile,
            @ForAll @IntRange(min = 1, max = 12) int records, @ForAll @IntRange(min = 0, max = 199) int slack,
            @ForAll @IntRange(min = 0, max = 14) int thresholdRecords, @ForAll @IntRange(min = 1, max = 30) int period,
            @ForAll boolean builtinHandler) {
        LogicalProcessor cpu = pebsCpu(profile, records, slack, thresholdRecords, period);
        if (builtinHandler) {
            cpu.setPmiHandler(new DsInterruptRoutine());
        }
        long max = cpu.memory().read64(DS + 0x30);
        for (Op op : program) {
            op.apply(cpu);
            long index = cpu.memory().read64(DS + 0x28);
            String where = profile + " after " + op + ": index 0x" + Long.toHexString(index);
            assertTrue(Long.compareUnsigned(PEBS_BUF, index) <= 0 && Long.compareUnsigned(index, max) <= 0, where);
            List<PebsRecord> written = cpu.pebsRecords();
            long end = PEBS_BUF;
            for (PebsRecord r : written) {
                assertTrue(Long.compareUnsigned(r.address(), end) >= 0, where + ": record at 0x"
                        + Long.toHexString(r.address()) + " overlaps the one before (ends 0x" + Long.toHexString(end) + ")");
                end = r.address() + r.size();
            }
            assertTrue(Long.compareUnsigned(end, index) <= 0 && Long.compareUnsigned(end, max) <= 0, where);
        }
    }

    @Property(tries = 150)
    void aPebsCounterAlwaysRestartsFromItsResetValue(
            @ForAll("programs") List<Op> program, @ForAll("pebsProfiles") String profile,
            @ForAll @IntRange(min = 1, max = 30) int period) {
        // A threshold of one record interrupts after every record, before anything else counts:
        // the handler sees each PEBS counter the record is for exactly at its reset value.
        LogicalProcessor cpu = pebsCpu(profile, 4, 0, 1, period);
        DsInterruptRoutine isr = new DsInterruptRoutine();
        long[] checked = new long[1];
        cpu.setPmiHandler((c, pmi) -> {
            if (pmi.pebsThreshold()) {
                PebsRecord last = c.pebsRecords().getLast();
                long counters = last.applicableCounters() == 0 ? 1 : last.applicableCounters();
                for (long a = counters; a != 0; a &= a - 1) {
                    int i = Long.numberOfTrailingZeros(a);
                    long reset = c.memory().read64(DS + 0x40 + 8L * i) & ((1L << 48) - 1);
                    long mask = profile.equals("core2") ? (1L << 40) - 1 : (1L << 48) - 1;
                    assertEquals(reset & mask, c.rdmsr(msr("IA32_PMC" + i)), profile + ": PMC" + i + " after a record");
                    checked[0]++;
                }
            }
            isr.onPmi(c, pmi);
        });
        for (Op op : program) {
            op.apply(cpu);
        }
        // Then a known tail, so every try checks at least one record.
        long before = checked[0];
        cpu.wrmsr(msr("IA32_DEBUGCTL"), 0);
        cpu.wrmsr(msr("IA32_PERF_GLOBAL_OVF_CTRL"), cpu.rdmsr(msr("IA32_PERF_GLOBAL_STATUS")));
        cpu.memory().write64(DS + 0x28, PEBS_BUF);
        cpu.wrmsr(msr("IA32_PERFEVTSEL0"), 0x4300C4);
        cpu.wrmsr(msr("IA32_PMC0"), 0xFFFF_FFFFL);
        cpu.wrmsr(msr("IA32_PERF_GLOBAL_CTRL"), 0x3);
        for (int i = 0; i < 2; i++) {
            cpu.branch(0x401000 + 16L * i, 0x402000 + 16L * i, BranchType.JCC, 3, false);
        }
        assertTrue(checked[0] > before, profile + ": the tail's record was not checked");
    }
}
