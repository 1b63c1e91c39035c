package dev.hwtool.sim.cpu;

import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.ArchPerfmonEvent;

import java.util.Map;

/**
 * Architectural performance monitoring of one simulated CPU, versions 1 to 5 as CPUID.0AH
 * enumerates them (SDM Vol. 3B 18.2).
 *
 * <p>Counters are indexed as IA32_PERF_GLOBAL_CTRL/STATUS number them: general-purpose counter
 * i at i, fixed counter j at 32 + j. A counter counts iff its own enable (PERFEVTSELx.EN, or a
 * non-zero IA32_FIXED_CTR_CTRL EN field) and, from version 2, its IA32_PERF_GLOBAL_CTRL bit are
 * set and, from version 4, IA32_PERF_GLOBAL_STATUS.CTR_FRZ is clear (SDM 18.2.4.1).
 *
 * <p>Events. The simulator counts the architectural events it can observe — instructions
 * retired (C0H), branch instructions retired (C4H; taken branches, which are all the simulator
 * retires), branch mispredicts retired (C5H), core cycles (3CH/00H) and reference cycles
 * (3CH/01H, the same rate: one TSC tick per core cycle) — when CPUID.0AH:EBX says they are
 * available. Any other event select counts nothing (a choice: the simulator has no caches and
 * no pipeline-slot model, so LLC and top-down events, and fixed counter 3, stay at their value).
 *
 * <p>Per cycle, an event occurs 0 or 1 times (one instruction retires per cycle). CMASK,
 * INV and E apply to that per-cycle count as SDM 18.2.1.1 defines them: with CMASK &gt; 0 the
 * counter adds 1 in each cycle where count ≥ CMASK (&lt; with INV); E counts only the cycles where
 * that condition becomes true. INV without CMASK is ignored (it inverts the CMASK comparison).
 *
 * <p>AnyThread (version 3+, PERFEVTSELx bit 21 and bit 2 of each IA32_FIXED_CTR_CTRL field; SDM
 * 18.2.3, seed 002): such a counter also counts the events its core's other logical processors
 * retire, "including matching the thread's CPL with the OS/USR setting" — each thread's own CPL.
 * Those come in through {@link #countAnyThread} and {@link #anyThreadStepsToOverflow}, which
 * touch only the AnyThread counters. The simulator never runs two threads of a core in the same
 * cycle (it retires them one after the other), so a cycle event counted on any thread adds up
 * the threads' cycles, and CMASK/E see each thread's cycles separately. Where the catalog makes
 * the bit reserved (before v3, or deprecated by CPUID.0AH:EDX[15]) a write setting it #GPs and
 * never reaches here.
 *
 * <p>Overflow: a counter that passes its width wraps to 0, sets its IA32_PERF_GLOBAL_STATUS
 * bit (version ≥ 2) and, when its INT (PERFEVTSELx bit 20) or PMI (fixed field bit 3) is set,
 * requests a PMI. The caller retires in chunks that end at the first overflow
 * ({@link #stepsToOverflow}), so the PMI follows the instruction that caused it.
 */
final class PerfMon {

    static final int EV_NONE = 0;
    static final int EV_INSTRUCTIONS = 1;
    static final int EV_BRANCHES = 2;
    static final int EV_MISPREDICTS = 3;
    static final int EV_CYCLES = 4;
    static final int EV_REF_CYCLES = 5;

    static final int FIXED_BASE = 32;
    static final int SLOTS = 40;

    /** IA32_PERFEVTSELx bits, SDM Vol. 3B Figure 18-1. */
    static final long EVTSEL_USR = 1L << 16;
    static final long EVTSEL_OS = 1L << 17;
    static final long EVTSEL_E = 1L << 18;
    static final long EVTSEL_INT = 1L << 20;
    static final long EVTSEL_ANY = 1L << 21;
    static final long EVTSEL_EN = 1L << 22;
    static final long EVTSEL_INV = 1L << 23;
    static final int EVTSEL_CMASK_SHIFT = 24;

    /** IA32_FIXED_CTR_CTRL field bits (4 per counter). */
    static final int FIXED_EN_OS = 1;
    static final int FIXED_EN_USR = 2;
    static final int FIXED_ANY = 4;
    static final int FIXED_PMI = 8;

    /** IA32_PERF_GLOBAL_STATUS bits (SDM 18.2.4.1). */
    static final long LBR_FRZ = 1L << 58;
    static final long CTR_FRZ = 1L << 59;

    /** Fixed counter j counts: INST_RETIRED.ANY, CPU_CLK_UNHALTED.CORE, REF_TSC, TOPDOWN.SLOTS (not modelled). */
    private static final int[] FIXED_EVENTS = {EV_INSTRUCTIONS, EV_CYCLES, EV_REF_CYCLES, EV_NONE,
            EV_NONE, EV_NONE, EV_NONE};

    final int version;
    final int gpCounters;
    final int fixedCounters;
    private final long gpWidthMask;
    private final long fixedWidthMask;
    private final Map<String, Boolean> available;

    private final long[] value = new long[SLOTS];
    private final long[] evtsel = new long[SLOTS];
    long fixedCtrl;
    long globalCtrl;
    long globalStatus;

    // Decoded controls, recomputed on every write that changes them (never on the retirement path).
    private final int[] event = new int[SLOTS];
    private final boolean[] os = new boolean[SLOTS];
    private final boolean[] usr = new boolean[SLOTS];
    private final boolean[] pmi = new boolean[SLOTS];
    private final boolean[] anyThread = new boolean[SLOTS];
    private final boolean[] edge = new boolean[SLOTS];
    private final boolean[] inv = new boolean[SLOTS];
    private final int[] cmask = new int[SLOTS];
    private final boolean[] lastCondition = new boolean[SLOTS];
    private final long[] widthMask = new long[SLOTS];
    /** What one retired branch adds to each simple counter (no CMASK/E): without and with a mispredict. */
    private final long[] branchAdds = new long[SLOTS];
    private final long[] mispredictedBranchAdds = new long[SLOTS];
    /** Counters that count now (CPL aside): bit c for counter c. */
    long active;
    /** Of {@link #active}: those counting at CPL 0 / CPL &gt; 0, and those needing the per-cycle CMASK/E rules. */
    private long activeOs;
    private long activeUsr;
    private long activeComplex;
    /** Of {@link #active}: the counters with AnyThread set, which also count the core's other threads. */
    long activeAny;
    /** Counters whose overflow requested a PMI not yet delivered. */
    long pmiPending;
    /** PEBS counters (IA32_PEBS_ENABLE, where the CPU's PEBS assist runs: {@link PebsUnit}). */
    long pebsCounters;
    /** PEBS counters that overflowed: the next event triggers the assist. */
    long armed;
    /** Armed counters whose next event came: the CPU runs the PEBS assist for them and clears this. */
    long pebsTriggered;
    /** Armed counters with INT set: their overflow PMI follows the assist (SDM "Performance Counter Prioritization"). */
    long deferredPmi;

    PerfMon(ArchPerfmon caps) {
        this.version = caps.version();
        this.gpCounters = caps.present() ? caps.gpCounters() : 0;
        this.fixedCounters = version >= 2 ? Math.min(caps.fixedCounters(), FIXED_EVENTS.length) : 0;
        this.gpWidthMask = widthMask(caps.gpWidth());
        this.fixedWidthMask = widthMask(caps.fixedWidth());
        this.available = caps.events();
        for (int c = 0; c < SLOTS; c++) {
            widthMask[c] = c >= FIXED_BASE ? fixedWidthMask : gpWidthMask;
        }
        for (int j = 0; j < fixedCounters; j++) {
            event[FIXED_BASE + j] = FIXED_EVENTS[j];
        }
    }

    /**
     * IA32_PERF_GLOBAL_CTRL after RESET: the general-purpose enables set, so that version-1
     * software, which knows only PERFEVTSELx.EN, keeps working (SDM 18.2.2; KVM sets the same
     * at vCPU RESET, arch/x86/kvm/pmu.c).
     */
    long resetGlobalCtrl() {
        return version >= 2 ? (1L << gpCounters) - 1 : 0;
    }

    static long widthMask(int bits) {
        return bits <= 0 ? 0 : bits >= 64 ? -1L : (1L << bits) - 1;
    }

    long mask(int c) {
        return widthMask[c];
    }

    // ---- register access (through RegisterFile ports) ----

    long counter(int c) {
        return value[c];
    }

    /** A WRMSR of counter c (already width-checked or sign-extended by the caller's port). */
    void setCounter(int c, long v) {
        value[c] = v & mask(c);
    }

    long eventSelect(int i) {
        return evtsel[i];
    }

    void setEventSelect(int i, long v) {
        evtsel[i] = v;
        recompute();
    }

    void setFixedCtrl(long v) {
        fixedCtrl = v;
        recompute();
    }

    void setGlobalCtrl(long v) {
        globalCtrl = v;
        recompute();
    }

    /** STATUS_RESET / OVF_CTRL: each 1 clears that status bit (unfreezing for LBR_FRZ/CTR_FRZ). */
    void resetStatus(long bits) {
        globalStatus &= ~bits;
        recompute();
    }

    /** STATUS_SET (v4+), and the PMI's own freeze bits. */
    void setStatus(long bits) {
        globalStatus |= bits;
        recompute();
    }

    /**
     * IA32_PERF_GLOBAL_INUSE (v4, SDM 18.2.4.3): bit i when PERFEVTSELi's event select [7:0] is
     * non-zero, bit 32+j when fixed counter j's EN field is non-zero, bit 63 when any INT or PMI
     * enable is set.
     */
    long inUse() {
        long v = 0;
        boolean anyPmi = false;
        for (int i = 0; i < gpCounters; i++) {
            if ((evtsel[i] & 0xFF) != 0) {
                v |= 1L << i;
            }
            anyPmi |= (evtsel[i] & EVTSEL_INT) != 0;
        }
        for (int j = 0; j < fixedCounters; j++) {
            int field = (int) (fixedCtrl >>> (4 * j)) & 0xF;
            if ((field & (FIXED_EN_OS | FIXED_EN_USR)) != 0) {
                v |= 1L << (FIXED_BASE + j);
            }
            anyPmi |= (field & FIXED_PMI) != 0;
        }
        return anyPmi ? v | 1L << 63 : v;
    }

    private void recompute() {
        long act = 0;
        boolean frozen = version >= 4 && (globalStatus & CTR_FRZ) != 0;
        for (int i = 0; i < gpCounters; i++) {
            long s = evtsel[i];
            event[i] = eventOf((int) (s & 0xFF), (int) (s >>> 8) & 0xFF);
            usr[i] = (s & EVTSEL_USR) != 0;
            os[i] = (s & EVTSEL_OS) != 0;
            edge[i] = (s & EVTSEL_E) != 0;
            inv[i] = (s & EVTSEL_INV) != 0;
            pmi[i] = (s & EVTSEL_INT) != 0;
            anyThread[i] = (s & EVTSEL_ANY) != 0;
            cmask[i] = (int) (s >>> EVTSEL_CMASK_SHIFT) & 0xFF;
            if ((s & EVTSEL_EN) != 0 && globallyEnabled(i, frozen)) {
                act |= 1L << i;
            }
        }
        for (int j = 0; j < fixedCounters; j++) {
            int c = FIXED_BASE + j;
            int field = (int) (fixedCtrl >>> (4 * j)) & 0xF;
            os[c] = (field & FIXED_EN_OS) != 0;
            usr[c] = (field & FIXED_EN_USR) != 0;
            pmi[c] = (field & FIXED_PMI) != 0;
            anyThread[c] = (field & FIXED_ANY) != 0;
            if ((os[c] || usr[c]) && globallyEnabled(c, frozen)) {
                act |= 1L << c;
            }
        }
        active = act;
        long osMask = 0;
        long usrMask = 0;
        long complex = 0;
        long any = 0;
        for (long a = act; a != 0; a &= a - 1) {
            int c = Long.numberOfTrailingZeros(a);
            any |= anyThread[c] ? 1L << c : 0;
            osMask |= os[c] ? 1L << c : 0;
            usrMask |= usr[c] ? 1L << c : 0;
            complex |= cmask[c] != 0 || edge[c] ? 1L << c : 0;
            branchAdds[c] = perCycle(event[c], 1, 1, 0);
            mispredictedBranchAdds[c] = perCycle(event[c], 1, 1, 1);
        }
        activeOs = osMask;
        activeUsr = usrMask;
        activeComplex = complex;
        activeAny = any;
    }

    private boolean globallyEnabled(int c, boolean frozen) {
        return version < 2 || ((globalCtrl >>> c & 1) != 0 && !frozen);
    }

    /** ArchPerfmonEvent.values() once: recompute runs on every control write, PMI handlers' included. */
    private static final ArchPerfmonEvent[] EVENTS = ArchPerfmonEvent.values();

    private int eventOf(int select, int umask) {
        for (ArchPerfmonEvent e : EVENTS) {
            if (e.eventSelect() == select && e.umask() == umask
                    && Boolean.TRUE.equals(available.get(e.sdmName()))) {
                return switch (e) {
                    case INSTRUCTIONS_RETIRED -> EV_INSTRUCTIONS;
                    case BRANCH_INSTRUCTIONS_RETIRED -> EV_BRANCHES;
                    case BRANCH_MISPREDICTS_RETIRED -> EV_MISPREDICTS;
                    case CORE_CYCLES -> EV_CYCLES;
                    case REFERENCE_CYCLES -> EV_REF_CYCLES;
                    default -> EV_NONE;
                };
            }
        }
        return EV_NONE;
    }

    // ---- counting (the retirement path: no allocation) ----

    private static int perCycle(int event, int instructions, int branches, int mispredicts) {
        return switch (event) {
            case EV_INSTRUCTIONS -> instructions;
            case EV_BRANCHES -> branches;
            case EV_MISPREDICTS -> mispredicts;
            case EV_CYCLES, EV_REF_CYCLES -> 1;
            default -> 0;
        };
    }

    private boolean counts(int c, int cpl) {
        return cpl == 0 ? os[c] : usr[c];
    }

    /**
     * How many identical cycles can pass before some counter overflows (the overflowing cycle
     * included); {@link Long#MAX_VALUE} when none would.
     */
    long stepsToOverflow(int cpl, int instructions, int branches, int mispredicts) {
        return stepsToOverflow(active, cpl, instructions, branches, mispredicts);
    }

    /** {@link #stepsToOverflow} of the AnyThread counters for cycles another thread of the core retires. */
    long anyThreadStepsToOverflow(int cpl, int instructions, int branches, int mispredicts) {
        return stepsToOverflow(activeAny, cpl, instructions, branches, mispredicts);
    }

    private long stepsToOverflow(long counters, int cpl, int instructions, int branches, int mispredicts) {
        long min = Long.MAX_VALUE;
        long act = counters;
        while (act != 0) {
            int c = Long.numberOfTrailingZeros(act);
            act &= act - 1;
            if (!counts(c, cpl)) {
                continue;
            }
            int n = perCycle(event[c], instructions, branches, mispredicts);
            boolean condition = cmask[c] == 0 ? n > 0 : (n >= cmask[c]) != inv[c];
            if ((armed >>> c & 1) != 0) {
                // The next event triggers the PEBS assist: end the chunk there.
                if (condition && (!edge[c] || !lastCondition[c])) {
                    min = 1;
                }
            } else if (edge[c]) {
                // An edge adds at most 1, in the chunk's first cycle.
                if (condition && !lastCondition[c] && value[c] == mask(c)) {
                    min = 1;
                }
            } else if (condition) {
                min = Math.min(min, mask(c) - value[c] + 1);
            }
        }
        return min;
    }

    /**
     * One retired taken branch (one cycle): the hot path. Simple counters add a precomputed
     * amount; counters with CMASK or E take the general per-cycle rules.
     */
    void countBranch(int cpl, boolean mispredicted) {
        long act = cpl == 0 ? activeOs : activeUsr;
        if ((act & activeComplex) != 0) {
            count(1, cpl, 1, 1, mispredicted ? 1 : 0);
            return;
        }
        long[] adds = mispredicted ? mispredictedBranchAdds : branchAdds;
        while (act != 0) {
            int c = Long.numberOfTrailingZeros(act);
            act &= act - 1;
            if (adds[c] != 0 && (armed >>> c & 1) != 0) {
                trigger(c);
            }
            long v = value[c] + adds[c];
            if (Long.compareUnsigned(v, widthMask[c]) > 0) {
                overflow(c, v);
            } else {
                value[c] = v;
            }
        }
    }

    /** {@code cycles} identical cycles at {@code cpl}, each retiring the given events (0 or 1 each). */
    void count(long cycles, int cpl, int instructions, int branches, int mispredicts) {
        count(active, cycles, cpl, instructions, branches, mispredicts);
    }

    /** Cycles another logical processor of the core retired, at its CPL: only the AnyThread counters count them. */
    void countAnyThread(long cycles, int cpl, int instructions, int branches, int mispredicts) {
        count(activeAny, cycles, cpl, instructions, branches, mispredicts);
    }

    private void count(long counters, long cycles, int cpl, int instructions, int branches, int mispredicts) {
        long act = counters;
        while (act != 0) {
            int c = Long.numberOfTrailingZeros(act);
            act &= act - 1;
            if (!counts(c, cpl)) {
                continue;
            }
            int n = perCycle(event[c], instructions, branches, mispredicts);
            long inc;
            if (cmask[c] == 0 && !edge[c]) {
                inc = n * cycles;
            } else {
                boolean condition = cmask[c] == 0 ? n > 0 : (n >= cmask[c]) != inv[c];
                inc = edge[c] ? (condition && !lastCondition[c] ? 1 : 0) : (condition ? cycles : 0);
                lastCondition[c] = condition;
            }
            if (inc != 0) {
                add(c, inc);
            }
        }
    }

    private void add(int c, long inc) {
        if ((armed >>> c & 1) != 0) {
            trigger(c);
        }
        long v = value[c] + inc;
        if (Long.compareUnsigned(v, widthMask[c]) > 0) {
            overflow(c, v);
        } else {
            value[c] = v;
        }
    }

    /**
     * The counter passed its width: wrap, set its status bit (v2+), and ask for a PMI if enabled —
     * or, for a PEBS counter, arm PEBS, its PMI (if INT) waiting for the assist (see {@link PebsUnit}).
     */
    private void overflow(int c, long v) {
        value[c] = v & widthMask[c];
        long bit = 1L << c;
        if (version >= 2) {
            globalStatus |= bit;
        }
        if ((pebsCounters & bit) != 0) {
            armed |= bit;
            if (pmi[c]) {
                deferredPmi |= bit;
            }
        } else if (pmi[c]) {
            pmiPending |= bit;
        }
    }

    /** IA32_PEBS_ENABLE changed (or PEBS became unavailable): PEBS-disabled counters lose their arming. */
    void setPebsCounters(long counters) {
        pebsCounters = counters;
        long gone = (armed | deferredPmi) & ~counters;
        pmiPending |= deferredPmi & gone;
        armed &= counters;
        deferredPmi &= counters;
    }

    /** An armed counter counted an event: the 0 to 1 transition triggers the assist. */
    private void trigger(int c) {
        long bit = 1L << c;
        armed &= ~bit;
        pebsTriggered |= bit;
    }

    /** Legacy Freeze_Perfmon_On_PMI (v2–3): the PMI clears every enable of IA32_PERF_GLOBAL_CTRL. */
    void freezeLegacy() {
        setGlobalCtrl(0);
    }
}
