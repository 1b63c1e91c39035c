package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.SmtTopology;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.sim.cpu.internal.CpuInternals;
import dev.hwtool.sim.workload.Retirement;

import java.util.ArrayList;
import java.util.List;

/**
 * One simulated logical processor (the SDM's term for what Linux numbers as a CPU, Vol. 3A 8.1;
 * named so, not "SimulatedCpu", to keep that name for hwtool-junit's annotation): its registers ({@link RegisterFile}) and the units that act on
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
 * <p>Cores: the machine groups its CPUs into cores by x2APIC ID ({@link SmtTopology}); a counter
 * with AnyThread set also counts what the other logical processors of its core retire, and its
 * overflow interrupts its own CPU ({@link PerfMon}).
 *
 * <p>Threading: one thread drives retirement (with AnyThread counting, one thread for all the
 * logical processors of a core); MSR accesses from other threads are serialised
 * with each other but must not overlap retirement on the same CPU. Nothing on the retirement
 * path allocates.
 */
public final class LogicalProcessor implements Retirement {

    /** IA32_DEBUGCTL bits (SDM Vol. 3B 17.4.1). */
    public static final long DEBUGCTL_LBR = 1;
    public static final long DEBUGCTL_BTF = 1L << 1;
    public static final long DEBUGCTL_TR = BtsUnit.DEBUGCTL_TR;
    public static final long DEBUGCTL_BTS = BtsUnit.DEBUGCTL_BTS;
    public static final long DEBUGCTL_FREEZE_LBRS_ON_PMI = 1L << 11;
    public static final long DEBUGCTL_FREEZE_PERFMON_ON_PMI = 1L << 12;
    /** IA32_MISC_ENABLE.BTS_UNAVAILABLE (bit 11, SDM Vol. 4 Table 2-2, IA32_MISC_ENABLE). */
    static final long MISC_BTS_UNAVAILABLE = 1L << 11;
    /** IA32_MISC_ENABLE.PEBS_UNAVAILABLE (bit 12; SDM Vol. 4 Table 2-2, IA32_MISC_ENABLE). */
    static final long MISC_PEBS_UNAVAILABLE = 1L << 12;
    /** LVT entry bits (SDM Vol. 3A 11.5.1 Figure 11-8; Linux apicdef.h APIC_LVT_MASKED, APIC_DM_NMI). */
    public static final long LVT_MASKED = 1L << 16;
    public static final long LVT_DM_NMI = 0x400;
    /** IA32_APIC_BASE.EXTD: x2APIC mode (SDM Vol. 3A 11.12.1). */
    static final long APIC_BASE_EXTD = 1L << 10;
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
    private final PebsUnit pebs;
    private final MsrDef miscEnable;
    private final long apicBase;
    private final SmtTopology topology;
    /** The other logical processors of this CPU's core (AnyThread counting); set by the machine. */
    private LogicalProcessor[] siblings = new LogicalProcessor[0];

    private long debugctl;
    private boolean trapFlag;
    private PmiHandler handler;
    private boolean inHandler;
    /** The last {@link #PMI_LOG} PMIs: a ring of slots filled again in turn (see {@link Pmi}). */
    private final Pmi[] pmiLog = new Pmi[PMI_LOG];

    private long instructions;
    private long cycles;
    private long branches;
    private long pmiCount;
    private long pmisMasked;
    /** The local APIC's LVT performance-counter entry (xAPIC offset 340H, x2APIC MSR 834H). */
    private long lvtPerfmon = LVT_DM_NMI;
    private long debugExceptions;
    private int currentCpl;
    /** Target of the last taken branch: the simulator's address for straight-line instructions (PEBS records). */
    private long lastTarget;
    /**
     * Whether the next retired branch needs nothing but the LBR unit and the retirement counts:
     * no trace messages (IA32_DEBUGCTL.TR clear), no counter of this CPU counting, no AnyThread
     * counter of a sibling counting, no PEBS assist or PMI pending here or on a sibling, no
     * single-step, not inside a PMI handler. Established by {@link #refreshPlain} at the end of
     * every full retirement, from the state then, and cleared by everything else that can change
     * that state (WRMSR, platform values, EFLAGS.TF, on this CPU or a sibling), so the next
     * branch takes the full path and establishes it again. Only which rules <em>can</em> act is
     * cached; every rule still runs as the SDM states it whenever it can act: BTS (Vol. 3B
     * 17.4.5, Table 17-6), counting and AnyThread (18.2, 18.2.3), the PEBS assist, the #DB of
     * single-step (17.4.3), and PMI delivery through the LVT entry (Vol. 3A 11.5.1), in the
     * order of events above (17.4.7).
     */
    private boolean plain;
    /** CPUID.01H:EDX[21] (DS) and CPUID.01H:ECX[21] (x2APIC): fixed for the CPU's life, asked on every PMI. */
    private final boolean ds;
    private final boolean x2apicSupported;
    /** What the DS interrupt routine reads on each PMI, in place and reused: taking a PMI allocates nothing. */
    private final BtsBufferView btsDrain;
    private final PebsBufferView pebsDrain;
    private final LbrSnapshot lbrSnapshot;

    /** CPU {@code number} at the boot values of {@code layout} (its CPUID, number and BSP flag). */
    LogicalProcessor(int number, RegisterFile.Layout layout, SimClock clock, SimMemory memory, String where) {
        this.number = number;
        this.memory = memory;
        this.regs = new RegisterFile(layout, clock, where);
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
        this.pebs = new PebsUnit(memory, pmu, caps, regs.context().guardedCpuid().flag(CpuidBit.DS));
        this.pebs.unavailable = miscEnable == null || (regs.stored(miscEnable.address()) & MISC_PEBS_UNAVAILABLE) != 0;
        regs.def("IA32_PEBS_ENABLE").ifPresent(d -> regs.attach(d, RegisterFile.MsrPort.of(() -> pebs.enable, v -> {
            pebs.enable = regs.merge(d, pebs.enable, v);
            pebs.update();
        })));
        regs.def("MSR_PEBS_DATA_CFG").ifPresent(d -> regs.attach(d, RegisterFile.MsrPort.of(() -> pebs.dataCfg,
                v -> pebs.dataCfg = regs.merge(d, pebs.dataCfg, v))));
        this.topology = SmtTopology.of(regs.context().guardedCpuid());
        this.ds = regs.context().guardedCpuid().flag(CpuidBit.DS);
        this.x2apicSupported = regs.context().guardedCpuid().read(1, 0).bit(dev.hwtool.arch.cpuid.CpuidRegs.Reg.ECX, 21);
        this.btsDrain = new BtsBufferView(memory);
        this.pebsDrain = new PebsBufferView(memory, pebs.legacyFormat());
        this.lbrSnapshot = new LbrSnapshot(lbr == null ? 0 : Math.max(lbr.depth(), ArchLbrStack.MAX));
        this.apicBase = regs.def("IA32_APIC_BASE").map(MsrDef::address).orElse(-1L);
        regs.def("IA32_X2APIC_LVT_PMI").ifPresent(d -> {
            lvtPerfmon = regs.stored(d.address());
            regs.attach(d, new RegisterFile.MsrPort() {
                @Override
                public long read(MsrDef def) {
                    x2apicMode(def, "RDMSR");
                    return lvtPerfmon;
                }

                @Override
                public void write(MsrDef def, long value) {
                    x2apicMode(def, "WRMSR");
                    lvtPerfmon = regs.merge(def, lvtPerfmon, value);
                }
            });
        });
        clock.attach(() -> cycles);
    }

    /**
     * x2APIC MSRs exist only in x2APIC mode: "RDMSR/WRMSR of an x2APIC MSR ... when x2APIC mode is
     * not enabled" raises #GP (SDM Vol. 3A 11.12.1.2).
     */
    private void x2apicMode(MsrDef def, String instruction) {
        if (apicBase < 0 || (regs.stored(apicBase) & APIC_BASE_EXTD) == 0) {
            throw regs.fault(instruction, def.address(), "an x2APIC register needs x2APIC mode (IA32_APIC_BASE.EXTD is 0)");
        }
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

    // The catalog's view and the decoded CPU are the api module's qualified exports' types, which
    // users cannot name: this class keeps them, and the simulator's other packages read the
    // context through CpuInternals.
    static {
        CpuInternals.install(LogicalProcessor.class, LogicalProcessor::context);
    }

    /** The catalog's view of this CPU (CPUID plus the simulated IA32_PERF_CAPABILITIES). */
    CpuContext context() {
        return regs.context();
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
        try {
            regs.write(address, value);
        } finally {
            unsettle();
        }
    }

    /** State the retirement path depends on may have changed: this CPU and its siblings take the full path next. */
    private void unsettle() {
        plain = false;
        for (LogicalProcessor s : siblings) {
            s.plain = false;
        }
    }

    /** See {@link #plain}: computed from the state as it is now. */
    private void refreshPlain() {
        plain = false;
        if (inHandler || trapFlag || (debugctl & DEBUGCTL_TR) != 0 || pmu.active != 0
                || pmu.pebsTriggered != 0 || pmu.pmiPending != 0 || bts.thresholdReached || pebs.thresholdReached) {
            return;
        }
        for (LogicalProcessor s : siblings) {
            if (s.pmu.activeAny != 0 || s.pmu.pebsTriggered != 0 || s.pmu.pmiPending != 0 || s.pebs.thresholdReached) {
                return;
            }
        }
        plain = true;
    }

    /**
     * Sets a register as the platform fixes it, bypassing WRMSR's rules (read-only bits
     * included): e.g. IA32_MISC_ENABLE.BTS_UNAVAILABLE, which KVM reports set to its guests.
     */
    public void setPlatformValue(long address, long value) {
        unsettle();
        regs.poke(address, value);
        bts.unavailable = btsUnavailable();
        if (miscEnable != null && address == miscEnable.address()) {
            pebs.unavailable = (regs.stored(address) & MISC_PEBS_UNAVAILABLE) != 0;
            pebs.update();
        }
    }

    /** EFLAGS.TF: single-step. With IA32_DEBUGCTL.BTF, on branches only (SDM 17.4.3). */
    public void setTrapFlag(boolean tf) {
        trapFlag = tf;
        unsettle();
    }

    public boolean trapFlag() {
        return trapFlag;
    }

    /** The DS interrupt service routine model; null: PMIs are recorded and frozen on, nothing runs. */
    public void setPmiHandler(PmiHandler handler) {
        this.handler = handler;
    }

    /**
     * The LVT performance-counter entry as the xAPIC reads it at APIC base + 340H (the same entry
     * IA32_X2APIC_LVT_PMI shows in x2APIC mode): for code playing the kernel on CPUs without x2APIC.
     */
    public long apicLvtPerfmon() {
        return lvtPerfmon;
    }

    /** An xAPIC write of the LVT performance-counter entry (Linux apic_write(APIC_LVTPC, v)); delivery status stays read-only. */
    public void writeApicLvtPerfmon(long value) {
        lvtPerfmon = (value & LVT_WRITABLE) | (lvtPerfmon & ~LVT_WRITABLE & 0xFFFF_FFFFL);
    }

    /** Vector [7:0], delivery mode [10:8], mask [16]: the entry's writable bits. */
    static final long LVT_WRITABLE = 0x107FF;

    /** Where this logical processor sits in its core: x2APIC ID and SMT shift from its CPUID. */
    SmtTopology topology() {
        return topology;
    }

    /** The other logical processors of this CPU's core on this machine, by CPU number. */
    public List<Integer> siblings() {
        return java.util.Arrays.stream(siblings).map(LogicalProcessor::number).toList();
    }

    void siblings(List<LogicalProcessor> others) {
        this.siblings = others.toArray(new LogicalProcessor[0]);
        unsettle();
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
        if (plain) {
            // Nothing below could act (see plain): the order of events is the same.
            lastTarget = to;
            return;
        }
        retireRest(from, to, cpl, mispredicted, dc);
    }

    /** A branch's effects after the LBR's, in the order of the class comment; then {@link #plain} again. */
    private void retireRest(long from, long to, int cpl, boolean mispredicted, long dc) {
        if ((dc & DEBUGCTL_TR) != 0) {
            bts.branch(from, to, cpl, mispredicted, dc);
        }
        if (pmu.active != 0) {
            pmu.countBranch(cpl, mispredicted);
        }
        for (LogicalProcessor s : siblings) {
            if (s.pmu.activeAny != 0) {
                s.pmu.countAnyThread(1, cpl, 1, 1, mispredicted ? 1 : 0);
            }
        }
        if (pmu.pebsTriggered != 0) {
            pebsAssist(from, to);
        }
        lastTarget = to;
        if (trapFlag) {
            debugException(1);
        }
        if (pmu.pmiPending != 0 || bts.thresholdReached || pebs.thresholdReached) {
            deliverPmi();
        }
        siblingPmis();
        refreshPlain();
    }

    /** A sibling's AnyThread counter that overflowed on this thread's events interrupts that sibling. */
    private void siblingPmis() {
        for (LogicalProcessor s : siblings) {
            if (s.pmu.pebsTriggered != 0) {
                s.pebsAssist(s.lastTarget, s.lastTarget);
            }
            if (s.pmu.pmiPending != 0 || s.pebs.thresholdReached) {
                s.deliverPmi();
            }
        }
    }

    /**
     * The PEBS assist for the counters whose armed event just came ({@link PebsUnit}); then the
     * overflow PMIs of those with INT set, which the SDM services after the assist.
     */
    private void pebsAssist(long eventingIp, long nextIp) {
        long triggered = pmu.pebsTriggered;
        pmu.pebsTriggered = 0;
        long rflags = PebsUnit.RFLAGS_FIXED | (trapFlag ? PebsUnit.RFLAGS_TF : 0);
        boolean lbrs = pebs.adaptive() && (pebs.dataCfg & dev.hwtool.arch.pebs.AdaptivePebs.DATACFG_LBRS) != 0;
        pebs.assist(bts.dsArea, triggered, eventingIp, nextIp, rflags, regs.tsc(), lbrSnapshot(lbrs));
        long deferred = pmu.deferredPmi & triggered;
        if (deferred != 0) {
            pmu.deferredPmi &= ~deferred;
            pmu.pmiPending |= deferred;
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
            for (LogicalProcessor s : siblings) {
                if (s.pmu.activeAny != 0) {
                    k = Math.min(k, s.pmu.anyThreadStepsToOverflow(cpl, perCycle, 0, 0));
                }
            }
            cycles += k;
            instructions += k * perCycle;
            if (pmu.active != 0) {
                pmu.count(k, cpl, perCycle, 0, 0);
            }
            for (LogicalProcessor s : siblings) {
                if (s.pmu.activeAny != 0) {
                    s.pmu.countAnyThread(k, cpl, perCycle, 0, 0);
                }
            }
            if (pmu.pebsTriggered != 0) {
                pebsAssist(lastTarget, lastTarget);
            }
            if (trapFlag && perCycle > 0 && (debugctl & DEBUGCTL_BTF) == 0) {
                debugException(k);
            }
            if (pmu.pmiPending != 0 || pebs.thresholdReached) {
                deliverPmi();
            }
            siblingPmis();
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

    /**
     * The PMU's interrupt request reaches the local APIC through the LVT performance-counter entry.
     *
     * <p>Freezing happens in the PMU on the overflow condition itself (SDM 17.4.7: "frozen on the
     * overflowed condition"; KVM likewise applies its legacy LBR freeze in intel_pmu_deliver_pmi
     * before kvm_apic_local_deliver looks at the mask), so it applies whether or not the APIC then
     * delivers.
     *
     * <p>Delivery (SDM Vol. 3A 11.5.1): with the entry's mask set the request is <em>dropped</em> —
     * the mask "inhibits reception of the interrupt", and the performance-counter entry has no
     * trigger mode or remote IRR that could hold it (it is edge-delivered); KVM's
     * kvm_apic_local_deliver (arch/x86/kvm/lapic.c) likewise delivers nothing while APIC_LVT_MASKED
     * is set. Nothing is lost to software: the overflow stays in IA32_PERF_GLOBAL_STATUS (and the
     * PEBS/BTS index in the DS area), which a handler re-reads before returning, as Linux's
     * intel_pmu_handle_irq loops while the status is non-zero. Dropped requests are counted
     * ({@link CpuStats#pmisMasked()}); {@code pmi.count} counts only delivered PMIs. Delivering one
     * sets the mask: "When the local APIC handles a performance-monitoring counters interrupt, it
     * automatically sets the mask flag in the LVT performance counter register" (SDM 11.5.1).
     */
    private void deliverPmi() {
        long overflowed = pmu.pmiPending;
        pmu.pmiPending = 0;
        boolean btsThreshold = bts.thresholdReached;
        bts.thresholdReached = false;
        boolean pebsThreshold = pebs.thresholdReached;
        pebs.thresholdReached = false;
        if (pebsThreshold && overflowed != 0) {
            // "the threshold interrupt is generated after the PEBS assist completes, followed by the
            // counter overflow interrupt (two separate interrupts are generated)"
            interrupt(0, btsThreshold, true);
            interrupt(overflowed, false, false);
        } else {
            interrupt(overflowed, btsThreshold, pebsThreshold);
        }
    }

    /** One PMI request: freeze (counter overflow or PEBS threshold), then delivery through the LVT entry. */
    private void interrupt(long overflowed, boolean btsThreshold, boolean pebsThreshold) {
        String froze = "none";
        if (overflowed != 0 || pebsThreshold) {
            froze = freeze();
        }
        if ((lvtPerfmon & LVT_MASKED) != 0) {
            pmisMasked++;
            return;
        }
        lvtPerfmon |= LVT_MASKED;
        int slot = (int) (pmiCount++ % PMI_LOG);
        Pmi pmi = pmiLog[slot];
        if (pmi == null) {
            pmi = pmiLog[slot] = new Pmi(pmiCount, instructions, overflowed, btsThreshold, pebsThreshold, froze);
        } else {
            pmi.set(pmiCount, instructions, overflowed, btsThreshold, pebsThreshold, froze);
        }
        if (handler != null) {
            inHandler = true;
            try {
                handler.onPmi(this, pmi);
            } finally {
                inHandler = false;
            }
        }
    }

    /** FREEZE_LBRS_ON_PMI / FREEZE_PERFMON_ON_PMI: legacy on v2–3, streamlined from v4; "none", "legacy" or "streamlined". */
    private String freeze() {
        boolean lbrs = (debugctl & DEBUGCTL_FREEZE_LBRS_ON_PMI) != 0;
        boolean counters = (debugctl & DEBUGCTL_FREEZE_PERFMON_ON_PMI) != 0;
        if (pmu.version >= 4 && (lbrs || counters)) {
            pmu.setStatus((lbrs ? PerfMon.LBR_FRZ : 0) | (counters ? PerfMon.CTR_FRZ : 0));
            return "streamlined";
        }
        if (pmu.version >= 2 && (lbrs || counters)) {
            if (lbrs) {
                debugctl &= ~DEBUGCTL_LBR;
            }
            if (counters) {
                pmu.freezeLegacy();
            }
            return "legacy";
        }
        return "none";
    }

    // ---- observation ----

    public CpuStats stats() {
        return new CpuStats(instructions, cycles, branches, lbr == null ? 0 : lbr.records(), bts.generated,
                bts.stored, bts.dropped, pebs.records, pebs.dropped, pmiCount, pmisMasked, debugExceptions);
    }

    /** The LBR stack's valid entries, most recent first; empty when the CPU has no LBR. */
    public List<LbrEntry> lbr() {
        return lbr == null ? List.of() : lbr.entries();
    }

    /**
     * The CPU's one LBR snapshot, filled with the stack's valid entries now (most recent first), or
     * emptied when {@code take} is false or the CPU has no LBR; valid until the next call.
     */
    LbrSnapshot lbrSnapshot(boolean take) {
        if (lbr != null && take) {
            lbr.snapshot(lbrSnapshot);
        } else {
            lbrSnapshot.clear();
        }
        return lbrSnapshot;
    }

    /** The CPU's one BTS drain view, loaded from the DS area at {@code area}; valid until the next call. */
    BtsBufferView btsDrain(long area) {
        return btsDrain.load(area);
    }

    /** The CPU's one PEBS drain view, loaded from the DS area at {@code area}; valid until the next call. */
    PebsBufferView pebsDrain(long area) {
        return pebsDrain.load(area);
    }

    /** CPUID.01H:EDX[21]: the DS save area exists. */
    boolean ds() {
        return ds;
    }

    /** CPUID.01H:ECX[21]: the local APIC supports x2APIC mode. */
    boolean x2apicSupported() {
        return x2apicSupported;
    }

    /** Whether this CPU implements the MSR at {@code address} (the catalog's existence rule for its context). */
    boolean implementsMsr(long address) {
        return regs.implemented(address);
    }

    /** {@link MsrDef#definedMask} of that register for this CPU, computed once. */
    long definedMask(long address) {
        return regs.implemented(address) ? regs.definedMask(address)
                : dev.hwtool.arch.msr.MsrCatalog.byAddress(address).map(d -> d.definedMask(context())).orElse(0L);
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

    /** The PEBS records between the buffer base and the PEBS index of the DS area IA32_DS_AREA points to. */
    public List<PebsRecord> pebsRecords() {
        List<PebsRecord> out = new ArrayList<>();
        if (bts.dsArea == 0 || !pebs.available()) {
            return out;
        }
        PebsBufferView v = pebsBuffer(bts.dsArea);
        for (int i = 0; i < v.count(); i++) {
            out.add(v.record(i));
        }
        return out;
    }

    /** The PEBS buffer of the DS area at {@code area}, in this CPU's record format. */
    PebsBufferView pebsBuffer(long area) {
        return PebsBufferView.of(memory, area, pebs.legacyFormat());
    }

    /** The size of the next PEBS record: the format's, or for adaptive PEBS what MSR_PEBS_DATA_CFG selects. */
    public int pebsRecordSize() {
        return pebs.recordSize();
    }

    /** Whether this CPU's PEBS assist runs (a PEBS model, DS, IA32_MISC_ENABLE.PEBS_UNAVAILABLE clear). */
    public boolean pebsAvailable() {
        return pebs.available();
    }

    /** The most recent PMIs (up to {@link #PMI_LOG}), oldest first. */
    public List<Pmi> pmis() {
        int n = (int) Math.min(pmiCount, PMI_LOG);
        List<Pmi> out = new ArrayList<>(n);
        for (long k = pmiCount - n; k < pmiCount; k++) {
            out.add(pmiLog[(int) (k % PMI_LOG)].copy());
        }
        return List.copyOf(out);
    }

    /** Set-ups the SDM leaves undefined that this CPU met, once per kind. */
    public List<Diagnostic> diagnostics() {
        return diagnostics.all();
    }
}
