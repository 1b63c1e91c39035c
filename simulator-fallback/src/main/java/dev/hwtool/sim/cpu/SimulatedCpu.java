package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.branch.BranchType;
import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.sim.workload.Retirement;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * One simulated logical CPU: its registers ({@link RegisterFile}) and the units that act on
 * retired branches and instructions — the LBR stack (legacy or architectural), BTS through the
 * DS save area in the machine's {@link SimMemory}, the architectural performance counters —
 * and the two interrupts they cause, #DB (single-step) and the PMI.
 *
 * <p>Order of events for each retired branch (DESIGN.md "Data flows"; SDM 17.4.7, seed 000):
 * the LBR records it, BTS stores its BTM, the counters count it; then a #DB is delivered if
 * single-stepping, then a PMI if a counter overflowed with its PMI enable set or the BTS index
 * reached its threshold — so the PMI is taken after the branch is fully recorded everywhere, and
 * the freeze it applies affects only what follows. (The single-step trap is delivered before the
 * PMI as the SDM's event priority puts traps on the previous instruction above interrupts,
 * Vol. 3A 6.9.)
 *
 * <p>Freezing on a PMI caused by counter overflow (SDM 17.4.7, 18.2.4.1; seed 002): with
 * architectural perfmon version 2–3, FREEZE_LBRS_ON_PMI clears IA32_DEBUGCTL.LBR and
 * FREEZE_PERFMON_ON_PMI clears IA32_PERF_GLOBAL_CTRL; from version 4 they set LBR_FRZ / CTR_FRZ
 * in IA32_PERF_GLOBAL_STATUS instead, leaving both registers unchanged, and writing those bits to
 * IA32_PERF_GLOBAL_STATUS_RESET unfreezes. A PMI from the BTS threshold freezes nothing.
 *
 * <p>Delivering a #DB clears IA32_DEBUGCTL.LBR (SDM 17.4.1, LBR flag: recording is "prior to a
 * debug exception being generated") and BTF (SDM 17.4.3: "The processor clears the BTF flag
 * when it generates a debug exception"). The #DB's own control transfer is not recorded.
 *
 * <p>Threading: one thread drives retirement; MSR accesses from other threads are serialised
 * with each other but must not overlap retirement on the same CPU. Nothing on the retirement
 * path allocates.
 */
public final class SimulatedCpu implements Retirement {

    /** IA32_DEBUGCTL bits (SDM Vol. 3B 17.4.1). */
    public static final long DEBUGCTL_LBR = 1;
    public static final long DEBUGCTL_BTF = 1L << 1;
    public static final long DEBUGCTL_TR = BtsUnit.DEBUGCTL_TR;
    public static final long DEBUGCTL_BTS = BtsUnit.DEBUGCTL_BTS;
    public static final long DEBUGCTL_FREEZE_LBRS_ON_PMI = 1L << 11;
    public static final long DEBUGCTL_FREEZE_PERFMON_ON_PMI = 1L << 12;
    /** IA32_MISC_ENABLE.BTS_UNAVAILABLE (bit 11, SDM Vol. 4 Table 2-2, IA32_MISC_ENABLE). */
    static final long MISC_BTS_UNAVAILABLE = 1L << 11;
    /** How many PMIs {@link #pmis()} keeps. */
    public static final int PMI_LOG = 1024;

    private final int number;
    private final RegisterFile regs;
    private final CpuCapabilities caps;
    private final SimMemory memory;
    private final Diagnostics diagnostics;
    private final PerfMon pmu;
    private final LbrUnit lbr;
    private final BtsUnit bts;
    private final MsrDef miscEnable;

    private long debugctl;
    private boolean trapFlag;
    private PmiHandler handler;
    private boolean inHandler;
    private final ArrayDeque<Pmi> pmiLog = new ArrayDeque<>();

    private long instructions;
    private long cycles;
    private long branches;
    private long pmiCount;
    private long debugExceptions;
    private int currentCpl;

    SimulatedCpu(int number, boolean bsp, CpuidReader cpuid, SimClock clock, SimMemory memory, String where) {
        this.number = number;
        this.memory = memory;
        this.regs = new RegisterFile(number, bsp, cpuid, clock, where);
        this.caps = regs.context().capabilities();
        this.diagnostics = new Diagnostics(() -> instructions);
        this.pmu = new PerfMon(caps.archPerfmon());
        PerfMonPorts.attach(pmu, regs);
        regs.def("IA32_DEBUGCTL").ifPresent(d -> regs.attach(d,
                RegisterFile.MsrPort.of(() -> debugctl, v -> debugctl = regs.merge(d, debugctl, v))));
        this.lbr = lbrUnit(caps, regs);
        this.bts = new BtsUnit(memory, diagnostics, predictedFlag(caps.identity()), regs);
        this.miscEnable = regs.def("IA32_MISC_ENABLE").orElse(null);
        this.bts.unavailable = btsUnavailable();
        clock.attach(() -> cycles);
    }

    private static LbrUnit lbrUnit(CpuCapabilities caps, RegisterFile regs) {
        if (caps.archLbr().supported() && regs.def("IA32_LBR_CTL").isPresent()) {
            return new ArchLbrStack(caps.archLbr(), regs);
        }
        if (caps.legacyLbr().present()) {
            return new LegacyLbrStack(caps.legacyLbr(), PerfCapabilitiesModel.lbrFormat(caps), regs);
        }
        return null;
    }

    private static boolean predictedFlag(Identity id) {
        return !(id.isIntel() && id.family() == 6 && BtsUnit.NO_PREDICTED_FLAG.contains(id.model()));
    }

    /** BTS stores nothing when IA32_MISC_ENABLE.BTS_UNAVAILABLE is set, or without the register or DS. */
    private boolean btsUnavailable() {
        return miscEnable == null || !regs.context().guardedCpuid().flag(CpuidBit.DS)
                || (regs.stored(miscEnable.address()) & MISC_BTS_UNAVAILABLE) != 0;
    }

    // ---- identity and registers ----

    public int number() {
        return number;
    }

    /** The catalog's view of this CPU (CPUID plus the simulated IA32_PERF_CAPABILITIES). */
    public CpuContext context() {
        return regs.context();
    }

    public CpuCapabilities capabilities() {
        return caps;
    }

    public SimMemory memory() {
        return memory;
    }

    /** RDMSR; #GP(0) as {@link HwException} with {@link Cause#REGISTER_FAULT}. */
    public long rdmsr(long address) {
        return regs.read(address);
    }

    /** WRMSR; #GP(0) as {@link HwException} with {@link Cause#REGISTER_FAULT}, the register unchanged. */
    public void wrmsr(long address, long value) {
        regs.write(address, value);
    }

    /**
     * Sets a register as the platform fixes it, bypassing WRMSR's rules (read-only bits
     * included): e.g. IA32_MISC_ENABLE.BTS_UNAVAILABLE, which KVM reports set to its guests.
     */
    public void setPlatformValue(long address, long value) {
        regs.poke(address, value);
        bts.unavailable = btsUnavailable();
    }

    /** EFLAGS.TF: single-step. With IA32_DEBUGCTL.BTF, on branches only (SDM 17.4.3). */
    public void setTrapFlag(boolean tf) {
        trapFlag = tf;
    }

    public boolean trapFlag() {
        return trapFlag;
    }

    /** The DS interrupt service routine model; null: PMIs are recorded and frozen on, nothing runs. */
    public void setPmiHandler(PmiHandler handler) {
        this.handler = handler;
    }

    /** Architectural perfmon version (CPUID.0AH:EAX[7:0]); 0 without. */
    public int perfmonVersion() {
        return pmu.version;
    }

    public int gpCounters() {
        return pmu.gpCounters;
    }

    public int fixedCounters() {
        return pmu.fixedCounters;
    }

    // ---- retirement ----

    @Override
    public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
        if (inHandler || (cpl & ~3) != 0 || type == null) {
            rejectBranch(type, cpl);
        }
        cycles++;
        instructions++;
        branches++;
        currentCpl = cpl;
        long dc = debugctl;
        if (lbr != null) {
            lbr.retire(from, to, type, cpl, mispredicted, cycles, dc, (pmu.globalStatus & PerfMon.LBR_FRZ) != 0);
        }
        if ((dc & DEBUGCTL_TR) != 0) {
            bts.branch(from, to, cpl, mispredicted, dc);
        }
        if (pmu.active != 0) {
            pmu.countBranch(cpl, mispredicted);
        }
        if (trapFlag) {
            debugException(1);
        }
        if (pmu.pmiPending != 0 || bts.thresholdReached) {
            deliverPmi();
        }
    }

    @Override
    public void instructions(long count, int cpl) {
        checkRetire(count, cpl);
        currentCpl = cpl;
        run(count, cpl, 1);
    }

    @Override
    public void cycles(long count) {
        checkRetire(count, currentCpl);
        run(count, currentCpl, 0);
    }

    /** {@code count} cycles at {@code cpl}, each retiring {@code perCycle} (0 or 1) non-branch instructions. */
    private void run(long count, int cpl, int perCycle) {
        long left = count;
        while (left > 0) {
            long k = left;
            if (pmu.active != 0) {
                k = Math.min(left, pmu.stepsToOverflow(cpl, perCycle, 0, 0));
            }
            cycles += k;
            instructions += k * perCycle;
            if (pmu.active != 0) {
                pmu.count(k, cpl, perCycle, 0, 0);
            }
            if (trapFlag && perCycle > 0 && (debugctl & DEBUGCTL_BTF) == 0) {
                debugException(k);
            }
            if (pmu.pmiPending != 0) {
                deliverPmi();
            }
            left -= k;
        }
    }

    private void checkRetire(long count, int cpl) {
        if (inHandler) {
            throw new IllegalStateException("CPU " + number + ": a PMI handler must not retire instructions");
        }
        if (count < 0) {
            throw new IllegalArgumentException("a negative count (" + count + ") cannot retire");
        }
        if ((cpl & ~3) != 0) {
            throw new IllegalArgumentException("CPL " + cpl + " is not 0..3");
        }
    }

    private void rejectBranch(BranchType type, int cpl) {
        checkRetire(0, cpl);
        if (type == null) {
            throw new IllegalArgumentException("a branch needs a type");
        }
    }

    private void debugException(long count) {
        debugExceptions += count;
        debugctl &= ~(DEBUGCTL_LBR | DEBUGCTL_BTF);
        if (lbr != null) {
            lbr.debugException();
        }
    }

    private void deliverPmi() {
        long overflowed = pmu.pmiPending;
        pmu.pmiPending = 0;
        boolean btsThreshold = bts.thresholdReached;
        bts.thresholdReached = false;
        String froze = "none";
        if (overflowed != 0) {
            boolean lbrs = (debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI) != 0;
            boolean counters = (debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) != 0;
            if (pmu.version >= 4 && (lbrs || counters)) {
                pmu.setStatus((lbrs ? PerfMon.LBR_FRZ : 0) | (counters ? PerfMon.CTR_FRZ : 0));
                froze = "streamlined";
            } else if (pmu.version >= 2 && (lbrs || counters)) {
                if (lbrs) {
                    debugctl &= ~DEBUGCTL_LBR;
                }
                if (counters) {
                    pmu.freezeLegacy();
                }
                froze = "legacy";
            }
        }
        Pmi pmi = new Pmi(++pmiCount, instructions, overflowed, btsThreshold, froze);
        if (pmiLog.size() == PMI_LOG) {
            pmiLog.removeFirst();
        }
        pmiLog.addLast(pmi);
        if (handler != null) {
            inHandler = true;
            try {
                handler.onPmi(this, pmi);
            } finally {
                inHandler = false;
            }
        }
    }

    // ---- observation ----

    public CpuStats stats() {
        return new CpuStats(instructions, cycles, branches, lbr == null ? 0 : lbr.records(), bts.generated,
                bts.stored, bts.dropped, pmiCount, debugExceptions);
    }

    /** The LBR stack's valid entries, most recent first; empty when the CPU has no LBR. */
    public List<LbrEntry> lbr() {
        return lbr == null ? List.of() : lbr.entries();
    }

    /** The LBR depth in use (0 without LBR). */
    public int lbrDepth() {
        return lbr == null ? 0 : lbr.depth();
    }

    /** "legacy LBR_FMT n", "architectural" or "none". */
    public String lbrKind() {
        return switch (lbr) {
            case null -> "none";
            case LegacyLbrStack l -> "legacy, LBR_FMT " + l.format();
            case ArchLbrStack a -> "architectural";
        };
    }

    /** The BTS records between the buffer base and the index of the DS area IA32_DS_AREA points to. */
    public List<BtsRecord> btsRecords() {
        List<BtsRecord> out = new ArrayList<>();
        if (bts.dsArea == 0) {
            return out;
        }
        BtsBufferView records = BtsBufferView.of(memory, bts.dsArea);
        for (int i = 0; i < Math.min(records.count(), 1 << 20); i++) {
            out.add(records.record(i));
        }
        return out;
    }

    /** The most recent PMIs (up to {@link #PMI_LOG}), oldest first. */
    public List<Pmi> pmis() {
        return List.copyOf(pmiLog);
    }

    /** Set-ups the SDM leaves undefined that this CPU met, once per kind. */
    public List<Diagnostic> diagnostics() {
        return diagnostics.all();
    }
}
