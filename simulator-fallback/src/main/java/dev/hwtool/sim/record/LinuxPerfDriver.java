package dev.hwtool.sim.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.branch.DsSaveArea;
import dev.hwtool.arch.branch.LinuxLbrFilterMap;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.CpuidBit;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.sim.cpu.SimMemory;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.cpu.internal.CpuInternals;

import java.util.Optional;
import java.util.Collections;
import java.util.Locale;
import java.util.OptionalLong;

/**
 * The simulator's Linux perf driver: programs one simulated CPU's MSRs and DS area with the
 * values arch/x86/events/intel/{core.c,lbr.c,ds.c} write for the same request, through WRMSR and
 * memory writes only, and refuses, before anything is programmed, what the kernel refuses with
 * EOPNOTSUPP on that model.
 *
 * <ul>
 * <li>Counters (core.c, x86_perf_event_set_period): a GP counter's IA32_PERFEVTSELx gets the event
 *     bits | USR/OS from exclude_* | INT | EN, the counter -left (written through IA32_PMCx, EAX
 *     sign-extended, so left is at most x86_pmu.max_period = 2^31 - 1 without full-width writes;
 *     longer periods run in such chunks and sample only when the whole period has elapsed); a fixed
 *     counter gets its IA32_FIXED_CTR_CTRL field (OS 1, USR 2, PMI 8); IA32_PERF_GLOBAL_CTRL then
 *     enables it (version 2+, intel_pmu_enable_all).</li>
 * <li>LBR (lbr.c intel_pmu_lbr_reset / __intel_pmu_lbr_enable): the stack is cleared (legacy:
 *     FROM/TO/INFO written 0; arch: IA32_LBR_DEPTH written with the largest depth); legacy models
 *     get MSR_LBR_SELECT = the {@link LinuxLbrFilterMap} value (none on Core/Bonnell) and
 *     IA32_DEBUGCTL.LBR; arch LBR gets IA32_LBR_CTL = map value | LBREn. FREEZE_LBRS_ON_PMI is
 *     set, except in call-stack mode ("LBR callstack does not work well with FREEZE_LBRS_ON_PMI").</li>
 * <li>BTS (ds.c alloc_bts_buffer, intel_pmu_enable_bts): a DS area with a 64 KiB buffer of 2730
 *     records, absolute maximum base + 65520, interrupt threshold 4080 bytes below it; IA32_DEBUGCTL
 *     |= TR | BTS | BTINT | BTS_OFF_OS (0x3C0, user mode only).</li>
 * </ul>
 * The DS area and BTS buffer live at kernel direct-map addresses of the simulated memory.
 */
final class LinuxPerfDriver {

    private static final CpuInternals.CpuView<LogicalProcessor> CPU = CpuInternals.view(LogicalProcessor.class);

    /** IA32_PERFEVTSELx (SDM Vol. 3B Figure 18-1). */
    static final long EVTSEL_USR = 1L << 16;
    static final long EVTSEL_OS = 1L << 17;
    static final long EVTSEL_INT = 1L << 20;
    static final long EVTSEL_EN = 1L << 22;
    /** IA32_FIXED_CTR_CTRL field bits (4 per counter). */
    static final int FIXED_OS = 1;
    static final int FIXED_USR = 2;
    static final int FIXED_PMI = 8;
    /** IA32_PERF_GLOBAL_CTRL/STATUS: fixed counter j at bit 32 + j. */
    static final int FIXED_BASE = 32;
    /** x86_pmu.max_period without full-width counter writes (core.c). */
    static final long MAX_PERIOD = (1L << 31) - 1;

    /** IA32_DEBUGCTL (SDM 17.4.1; msr-index.h DEBUGCTLMSR_*). */
    static final long DEBUGCTL_LBR = 1;
    static final long DEBUGCTL_TR = 1L << 6;
    static final long DEBUGCTL_BTS = 1L << 7;
    static final long DEBUGCTL_BTINT = 1L << 8;
    static final long DEBUGCTL_BTS_OFF_OS = 1L << 9;
    static final long DEBUGCTL_BTS_OFF_USR = 1L << 10;
    static final long DEBUGCTL_FREEZE_LBRS_ON_PMI = 1L << 11;

    /** The per-CPU DS area and BTS buffer: kernel direct-map addresses (kernel_ip: top bit set). */
    static final long DS_AREA = 0xFFFF_8880_0010_0000L;
    static final long BTS_BUFFER = DS_AREA + SimMemory.PAGE_SIZE;
    /** BTS_BUFFER_SIZE = PAGE_SIZE << 4 (arch/x86/include/asm/intel_ds.h). */
    static final int BTS_BUFFER_SIZE = 4096 << 4;
    /** ds.c alloc_bts_buffer: max = BTS_BUFFER_SIZE / BTS_RECORD_SIZE, thresh = max / 16. */
    static final int BTS_MAX_RECORDS = BTS_BUFFER_SIZE / DsSaveArea.BTS_RECORD_SIZE;
    static final int BTS_THRESHOLD_RECORDS = BTS_MAX_RECORDS / 16;

    private final LogicalProcessor cpu;
    private final String profile;
    /** The catalog's view of the CPU (which registers it has, their masks), and its CPUID decoded. */
    private final CpuContext context;
    private final CpuCapabilities caps;

    private final long debugctl = address("IA32_DEBUGCTL");
    private final long globalCtrl = address("IA32_PERF_GLOBAL_CTRL");
    private final long fixedCtrl = address("IA32_FIXED_CTR_CTRL");
    private final long perfevtsel0 = address("IA32_PERFEVTSEL0");
    private final long pmc0 = address("IA32_PMC0");
    private final long fixedCtr0 = address("IA32_FIXED_CTR0");
    private final long dsArea = address("IA32_DS_AREA");
    private final long miscEnable = address("IA32_MISC_ENABLE");

    /** One counter armed for an event: its place, and the period bookkeeping of x86_perf_event_set_period. */
    static final class Armed {
        final EventCode code;
        final boolean fixed;
        final int index;
        final Privilege privilege;
        final long period;
        final boolean sampling;
        final long mask;
        long periodLeft;
        long programmed;

        Armed(EventCode code, boolean fixed, int index, Privilege privilege, long period, boolean sampling, long mask) {
            this.code = code;
            this.fixed = fixed;
            this.index = index;
            this.privilege = privilege;
            this.period = period;
            this.sampling = sampling;
            this.mask = mask;
            this.periodLeft = period;
        }

        /** The counter's IA32_PERF_GLOBAL_STATUS/CTRL bit. */
        long statusBit() {
            return 1L << (fixed ? FIXED_BASE + index : index);
        }
    }

    LinuxPerfDriver(LogicalProcessor cpu, String profile) {
        this.cpu = cpu;
        this.profile = profile;
        this.context = CPU.context(cpu);
        this.caps = context.capabilities();
    }

    private static long address(String name) {
        return MsrCatalog.byName(name).map(MsrDef::address)
                .orElseThrow(() -> new IllegalStateException("the catalog has no " + name));
    }

    private HwException unsupported(String what) {
        return new HwException(Cause.UNSUPPORTED, what + " (profile " + profile + ", " + caps.microarchitecture()
                .name() + "), as the kernel's EOPNOTSUPP");
    }

    // ---- checks: what this model can do ----

    /** Whether the event can be counted here at all, and if not why (a sentence), else null. */
    String cannotCount(EventCode code) {
        ArchPerfmon pm = caps.archPerfmon();
        if (!pm.present() || pm.version() < 2) {
            return code.name() + ": profile " + profile + " has no architectural performance monitoring version 2"
                    + " (CPUID.0AH:EAX version " + pm.version() + ")";
        }
        if (code.arch() != null && !Boolean.TRUE.equals(pm.events().get(code.arch().sdmName()))) {
            return code.name() + ": profile " + profile + "'s CPUID.0AH:EBX says '" + code.arch().sdmName()
                    + "' is not available";
        }
        if (code.fixedOnly() && code.fixed() >= cpu.fixedCounters()) {
            return code.name() + " is counted only by fixed counter " + code.fixed() + " (Linux's pseudo-encoding 0x"
                    + Long.toHexString(code.evtsel()) + "), and profile " + profile + " has " + cpu.fixedCounters()
                    + " fixed counters";
        }
        return null;
    }

    /** The counter a single sampling event gets: fixed-only events their fixed counter, others GP counter 0. */
    Armed place(EventCode code, Privilege privilege, long period, boolean sampling) {
        String why = cannotCount(code);
        if (why != null) {
            throw new HwException(Cause.UNSUPPORTED, why);
        }
        return code.fixedOnly() ? fixed(code, privilege, period, sampling) : gp(code, 0, privilege, period, sampling);
    }

    Armed gp(EventCode code, int index, Privilege privilege, long period, boolean sampling) {
        return new Armed(code, false, index, privilege, period, sampling, widthMask(caps.archPerfmon().gpWidth()));
    }

    Armed fixed(EventCode code, Privilege privilege, long period, boolean sampling) {
        return new Armed(code, true, code.fixed(), privilege, period, sampling, widthMask(caps.archPerfmon().fixedWidth()));
    }

    private static long widthMask(int bits) {
        return bits >= 64 ? -1L : (1L << bits) - 1;
    }

    /** How LBR is programmed for a request: the map's register value, and which stack it is. */
    record LbrSetup(LinuxLbrFilterMap map, long filterRegister, boolean callStack) {
    }

    /**
     * The LBR filter for {@code branchSampleType} (privilege bits included); UNSUPPORTED when the
     * profile has no LBR or its map cannot do the filter (intel_pmu_setup_lbr_filter: no lbr_nr, or
     * LBR_NOT_SUPP).
     */
    LbrSetup lbr(long branchSampleType) {
        boolean callStack = (branchSampleType & PerfBranchSample.CALL_STACK) != 0;
        if ("architectural".equals(cpu.lbrKind())) {
            if (callStack && !caps.archLbr().callStack()) {
                throw unsupported("LBR call-stack mode: CPUID.1CH:EBX[2] says this architectural LBR has none");
            }
            long v = LinuxLbrFilterMap.ARCH.register(branchSampleType).orElseThrow();
            if (!caps.archLbr().cplFilter()) {
                v &= ~(LinuxLbrFilterMap.Arch.USER | LinuxLbrFilterMap.Arch.KERNEL); // reserved: filtered in software
            }
            if (!caps.archLbr().branchFilter()) {
                v &= ~LinuxLbrFilterMap.Arch.ANY; // reserved: every type is recorded, filtered in software
            }
            return new LbrSetup(LinuxLbrFilterMap.ARCH, v, callStack);
        }
        if (!caps.legacyLbr().present() || cpu.lbrDepth() == 0) {
            throw unsupported("LBR: the CPU has no last branch records");
        }
        LinuxLbrFilterMap map = legacyMap();
        if (!map.hasHardwareFilter()) {
            if (callStack) {
                throw unsupported("LBR call-stack mode: this model has no MSR_LBR_SELECT (call stacks need Haswell or later)");
            }
            return new LbrSetup(map, 0, false);
        }
        OptionalLong v = map.register(branchSampleType);
        if (v.isEmpty()) {
            throw unsupported(callStack ? "LBR call-stack mode: this model's MSR_LBR_SELECT has no EN_CALLSTACK (Haswell and later)"
                    : "LBR filter 0x" + Long.toHexString(branchSampleType) + ": not in this model's lbr_sel_map");
        }
        return new LbrSetup(map, v.getAsLong(), callStack);
    }

    /** The model's lbr_sel_map (core.c intel_pmu_init: nhm for Nehalem/Westmere/Silvermont, snb for Sandy/Ivy Bridge and Goldmont, hsw from Haswell). */
    private LinuxLbrFilterMap legacyMap() {
        if (MsrCatalog.byName("MSR_LBR_SELECT", context).isEmpty()) {
            return LinuxLbrFilterMap.NONE;
        }
        if (caps.legacyLbr().callStack()) {
            return LinuxLbrFilterMap.HSW;
        }
        String n = caps.microarchitecture().name().toLowerCase(Locale.ROOT);
        return n.contains("nehalem") || n.contains("westmere") || n.contains("silvermont") || n.contains("airmont")
                ? LinuxLbrFilterMap.NHM : LinuxLbrFilterMap.SNB;
    }

    /** BTS through the {@code branches} event with period 1 (arch/x86/events/perf_event.h, intel_pmu_has_bts_period): what the kernel refuses. */
    void checkBts(Privilege privilege) {
        if (privilege.kernel()) {
            throw new HwException(Cause.UNSUPPORTED, "BTS is only allowed for user mode (arch/x86/events/intel/core.c"
                    + " refuses exclude_kernel=0 with EOPNOTSUPP): record with privilege user");
        }
        var id = context.guardedCpuid();
        if (!id.flag(CpuidBit.DS) || !id.flag(CpuidBit.DTES64)) {
            throw unsupported("BTS: the CPU has no " + (id.flag(CpuidBit.DS) ? "64-bit DS area (DTES64)" : "debug store (DS)"));
        }
        if ((cpu.rdmsr(miscEnable) & 1L << 11) != 0) {
            throw unsupported("BTS: IA32_MISC_ENABLE.BTS_UNAVAILABLE is set");
        }
        if (!id.flag(CpuidBit.DS_CPL)) {
            throw unsupported("BTS for user mode only: the CPU has no DS-CPL, so IA32_DEBUGCTL.BTS_OFF_OS would #GP");
        }
    }

    // ---- programming ----

    /** x86_perf_event_set_period then enable: the counter starts at -left and counts. */
    void enable(Armed a) {
        setPeriod(a);
        start(a);
    }

    /** A counting event's counter: from 0, no interrupt (its value is read, not sampled). */
    void enableCounting(Armed a) {
        write(a, 0);
        start(a);
    }

    private void start(Armed a) {
        if (a.fixed) {
            long ctrl = cpu.rdmsr(fixedCtrl) & ~(0xFL << (4 * a.index));
            long field = (a.privilege.kernel() ? FIXED_OS : 0) | (a.privilege.user() ? FIXED_USR : 0)
                    | (a.sampling ? FIXED_PMI : 0);
            cpu.wrmsr(fixedCtrl, ctrl | field << (4 * a.index));
        } else {
            cpu.wrmsr(perfevtsel0 + a.index, a.code.evtsel() | (a.privilege.user() ? EVTSEL_USR : 0)
                    | (a.privilege.kernel() ? EVTSEL_OS : 0) | (a.sampling ? EVTSEL_INT : 0) | EVTSEL_EN);
        }
        if (cpu.perfmonVersion() >= 2) {
            cpu.wrmsr(globalCtrl, cpu.rdmsr(globalCtrl) | a.statusBit());
        }
    }

    /** Stops the counter (clears its enable and its IA32_PERF_GLOBAL_CTRL bit). */
    void disable(Armed a) {
        if (a.fixed) {
            cpu.wrmsr(fixedCtrl, cpu.rdmsr(fixedCtrl) & ~(0xFL << (4 * a.index)));
        } else {
            cpu.wrmsr(perfevtsel0 + a.index, 0);
        }
        if (cpu.perfmonVersion() >= 2) {
            cpu.wrmsr(globalCtrl, cpu.rdmsr(globalCtrl) & ~a.statusBit());
        }
    }

    /** The counter's current value (RDMSR). */
    long read(Armed a) {
        return cpu.rdmsr(a.fixed ? fixedCtr0 + a.index : pmc0 + a.index) & a.mask;
    }

    /** Writes the counter (IA32_PMCx takes the sign-extended low 32 bits; fixed counters their full width). */
    void write(Armed a, long value) {
        cpu.wrmsr(a.fixed ? fixedCtr0 + a.index : pmc0 + a.index, value & (a.fixed ? a.mask : 0xFFFF_FFFFL));
    }

    /**
     * intel_pmu_save_and_restart after the counter overflowed: x86_perf_event_update subtracts what
     * was counted since it was programmed from period_left, x86_perf_event_set_period reloads it.
     *
     * @return whether a whole period elapsed (the kernel then emits a sample)
     */
    boolean saveAndRestart(Armed a) {
        long start = -a.programmed & a.mask;
        long delta = (read(a) - start) & a.mask;
        a.periodLeft -= delta;
        return setPeriod(a);
    }

    private boolean setPeriod(Armed a) {
        boolean elapsed = false;
        if (a.periodLeft <= -a.period) {
            a.periodLeft = a.period;
            elapsed = true;
        }
        if (a.periodLeft <= 0) {
            a.periodLeft += a.period;
            elapsed = true;
        }
        long left = Math.min(a.periodLeft, MAX_PERIOD);
        a.programmed = left;
        write(a, -left);
        return elapsed;
    }

    /** Clears the stack and enables LBR with {@code setup}'s filter (intel_pmu_lbr_reset, __intel_pmu_lbr_enable). */
    void enableLbr(LbrSetup setup) {
        long freeze = setup.callStack() ? 0 : DEBUGCTL_FREEZE_LBRS_ON_PMI & debugctlMask();
        if (setup.map() == LinuxLbrFilterMap.ARCH) {
            cpu.wrmsr(address("IA32_LBR_DEPTH"), Collections.max(caps.archLbr().depths()));
            cpu.wrmsr(debugctl, cpu.rdmsr(debugctl) | freeze);
            cpu.wrmsr(address("IA32_LBR_CTL"), setup.filterRegister() | LinuxLbrFilterMap.Arch.LBREN);
            return;
        }
        var g = caps.legacyLbr();
        boolean info = g.infoMsr() >= 0 && MsrCatalog.byName("MSR_LBR_INFO_0", context).isPresent();
        for (int i = 0; i < g.depth(); i++) {
            cpu.wrmsr(g.fromMsr() + i, 0);
            cpu.wrmsr(g.toMsr() + i, 0);
            if (info) {
                cpu.wrmsr(g.infoMsr() + i, 0);
            }
        }
        if (setup.map().hasHardwareFilter()) {
            cpu.wrmsr(address("MSR_LBR_SELECT"), setup.filterRegister());
        }
        cpu.wrmsr(debugctl, cpu.rdmsr(debugctl) | DEBUGCTL_LBR | freeze);
    }

    /** __intel_pmu_lbr_disable. */
    void disableLbr(LbrSetup setup) {
        if (setup.map() == LinuxLbrFilterMap.ARCH) {
            cpu.wrmsr(address("IA32_LBR_CTL"), 0);
        }
        cpu.wrmsr(debugctl, cpu.rdmsr(debugctl) & ~(DEBUGCTL_LBR | DEBUGCTL_FREEZE_LBRS_ON_PMI));
        if (setup.map().hasHardwareFilter() && setup.map() != LinuxLbrFilterMap.ARCH) {
            cpu.wrmsr(address("MSR_LBR_SELECT"), 0);
        }
    }

    /** The value of MSR_LASTBRANCH_TOS (legacy LBR), the hw_idx of a branch stack. */
    long lbrTos() {
        return cpu.rdmsr(address("MSR_LASTBRANCH_TOS"));
    }

    private long debugctlMask() {
        return MsrCatalog.byAddress(debugctl).orElseThrow().definedMask(context);
    }

    /** ds.c alloc_bts_buffer + intel_pmu_enable_bts for a user-mode event with INT set. */
    void enableBts() {
        SimMemory mem = cpu.memory();
        long absMax = BTS_BUFFER + (long) BTS_MAX_RECORDS * DsSaveArea.BTS_RECORD_SIZE;
        mem.write64(DS_AREA + DsSaveArea.BTS_BUFFER_BASE, BTS_BUFFER);
        mem.write64(DS_AREA + DsSaveArea.BTS_INDEX, BTS_BUFFER);
        mem.write64(DS_AREA + DsSaveArea.BTS_ABSOLUTE_MAXIMUM, absMax);
        mem.write64(DS_AREA + DsSaveArea.BTS_INTERRUPT_THRESHOLD,
                absMax - (long) BTS_THRESHOLD_RECORDS * DsSaveArea.BTS_RECORD_SIZE);
        cpu.wrmsr(dsArea, DS_AREA);
        cpu.wrmsr(debugctl, cpu.rdmsr(debugctl) | DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_OS);
    }

    /** intel_pmu_disable_bts: clears TR|BTS|BTINT|BTS_OFF_OS|BTS_OFF_USR. */
    void disableBts() {
        cpu.wrmsr(debugctl, cpu.rdmsr(debugctl) & ~(DEBUGCTL_TR | DEBUGCTL_BTS | DEBUGCTL_BTINT | DEBUGCTL_BTS_OFF_OS
                | DEBUGCTL_BTS_OFF_USR));
    }

    /** The BTS index now (what a drain reads up to). */
    long btsIndex() {
        return cpu.memory().read64(DS_AREA + DsSaveArea.BTS_INDEX);
    }

    /** Resets the BTS index to the buffer base, after a drain. */
    void resetBtsIndex() {
        cpu.memory().write64(DS_AREA + DsSaveArea.BTS_INDEX, BTS_BUFFER);
    }

    // ---- PEBS (arch/x86/events/intel/ds.c) ------------------------------------------------------

    /** The PEBS buffer: after the BTS buffer, 64 KiB as ds.c's PEBS_BUFFER_SIZE (PAGE_SIZE << 4). */
    static final long PEBS_BUFFER = BTS_BUFFER + BTS_BUFFER_SIZE;
    static final int PEBS_BUFFER_SIZE = 4096 << 4;

    /** IA32_PERF_CAPABILITIES.PEBS_FMT [11:8] where PDCM lets it be read (intel_ds_init reads it so), else 0. */
    int pebsFormat() {
        Optional<MsrDef> caps = MsrCatalog.byName("IA32_PERF_CAPABILITIES", context);
        return caps.isEmpty() ? 0 : (int) (cpu.rdmsr(caps.get().address()) >>> 8 & 0xF);
    }

    /**
     * x86_pmu_max_precise (arch/x86/events/core.c): 1 with PEBS, 2 where the IP can be made exact
     * (an LBR to walk back with, or PEBS format 2's eventing IP), 3 with pebs_prec_dist, which
     * the kernel sets for Ivy Bridge and Skylake onwards; among the simulator's profiles that is
     * PEBS format 3 and later.
     */
    int maxPrecise() {
        if (!cpu.pebsAvailable()) {
            return 0;
        }
        int fmt = pebsFormat();
        return 1 + (cpu.lbrDepth() > 0 || fmt >= 2 ? 1 : 0) + (fmt >= 3 ? 1 : 0);
    }

    /**
     * Refuses a precise level the simulated CPU cannot give, as x86_pmu_hw_config does
     * (EOPNOTSUPP for precise_ip above x86_pmu_max_precise).
     */
    void checkPebs(int precise, EventCode code) {
        int max = maxPrecise();
        if (max == 0) {
            throw unsupported("precise_ip " + precise + ": no PEBS on this CPU (CPUID DS, a PEBS model and"
                    + " IA32_MISC_ENABLE[12] clear are needed; x86_pmu_max_precise is 0)");
        }
        if (precise > max) {
            throw unsupported("precise_ip " + precise + " is more than this CPU offers (x86_pmu_max_precise " + max
                    + ", PEBS format " + pebsFormat() + ")");
        }
        if (code.fixedOnly()) {
            throw unsupported(code.name() + " has no general-purpose encoding, and PEBS on fixed counters needs"
                    + " adaptive PEBS");
        }
    }

    /** A PEBS event's counter: PMC0, which every PEBS generation supports (Core 2 and Atom only it), INT clear. */
    Armed placePebs(EventCode code, Privilege privilege, long period) {
        return gp(code, 0, privilege, period, false);
    }

    /**
     * ds.c alloc_pebs_buffer + intel_pmu_pebs_enable for one event: the DS area's PEBS buffer,
     * the reset value (auto-reload: ds->pebs_event_reset[idx] = -period & cntval_mask), the
     * threshold one record past the base (the kernel's single-record threshold, so each record is
     * a PMI and a sample), the counter enabled with its INT bit clear (intel_pmu_pebs_enable clears
     * ARCH_PERFMON_EVENTSEL_INT: PEBS, not the counter, interrupts), and its IA32_PEBS_ENABLE bit.
     */
    void enablePebs(Armed a) {
        SimMemory mem = cpu.memory();
        int record = cpu.pebsRecordSize();
        long absMax = PEBS_BUFFER + (long) (PEBS_BUFFER_SIZE / record) * record;
        mem.write64(DS_AREA + DsSaveArea.PEBS_BUFFER_BASE, PEBS_BUFFER);
        mem.write64(DS_AREA + DsSaveArea.PEBS_INDEX, PEBS_BUFFER);
        mem.write64(DS_AREA + DsSaveArea.PEBS_ABSOLUTE_MAXIMUM, absMax);
        mem.write64(DS_AREA + DsSaveArea.PEBS_INTERRUPT_THRESHOLD, PEBS_BUFFER + record);
        mem.write64(DS_AREA + DsSaveArea.pebsCounterReset(a.index), -a.period & a.mask);
        cpu.wrmsr(dsArea, DS_AREA);
        enable(a);
        cpu.wrmsr(pebsEnable(), cpu.rdmsr(pebsEnable()) | 1L << a.index);
    }

    /** intel_pmu_pebs_disable: the IA32_PEBS_ENABLE bit, then the counter. */
    void disablePebs(Armed a) {
        cpu.wrmsr(pebsEnable(), cpu.rdmsr(pebsEnable()) & ~(1L << a.index));
        disable(a);
    }

    /** The PEBS index now, and its reset to the base after a drain. */
    long pebsIndex() {
        return cpu.memory().read64(DS_AREA + DsSaveArea.PEBS_INDEX);
    }

    void resetPebsIndex() {
        cpu.memory().write64(DS_AREA + DsSaveArea.PEBS_INDEX, PEBS_BUFFER);
    }

    private long pebsEnable() {
        return address("IA32_PEBS_ENABLE");
    }

    LogicalProcessor cpu() {
        return cpu;
    }

    /** The driven CPU's CPUID decoded. */
    CpuCapabilities capabilities() {
        return caps;
    }
}
