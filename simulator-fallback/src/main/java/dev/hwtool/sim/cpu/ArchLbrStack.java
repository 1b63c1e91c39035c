package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;
import dev.hwtool.arch.branch.LbrFormat;
import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.sim.cpu.RegisterFile.MsrPort;

/**
 * Architectural LBR (CPUID.(07H,0):EDX[19], leaf 1CH; arch/x86/events/intel/lbr.c).
 *
 * <ul>
 * <li>IA32_LBR_CTL bits <em>enable</em>: LBREn, OS (CPL 0), USR (CPL &gt; 0), one bit per branch
 *     type ({@link BranchType#lbrCtlBit()}), CALL_STACK. Where CPUID.1CH:EBX says the CPU has
 *     no CPL or branch-type filtering, those bits are reserved and every CPL or type is recorded.
 * <li>Recording also stops while IA32_PERF_GLOBAL_STATUS.LBR_FRZ is set.
 * <li>No TOS register: IA32_LBR_0 is the most recent entry, IA32_LBR_1 the one before, up to
 *     IA32_LBR_DEPTH - 1 (as Linux lbr.c reads them).
 * <li>A write of IA32_LBR_DEPTH clears every entry; only depths CPUID.1CH:EAX[7:0] enumerates
 *     are accepted (#GP otherwise, Linux's wrmsrl_safe check).
 * <li>INFO: MISPRED [63] (with CPUID.1CH:ECX[0]), CYC_CNT [15:0] and CYC_CNT_VALID [60] (with
 *     ECX[1], timed LBR), BR_TYPE [59:56] (with ECX[2]).
 * <li>A #DB clears LBR_CTL.LBREn, as it clears IA32_DEBUGCTL.LBR for legacy LBR (the
 *     simulator's reading of the arch-LBR chapter; the entries stay).
 * <li>Call-stack mode: a near return pops the most recent entry (its slot is cleared).
 * </ul>
 * The entries live in a {@link LbrRing}, so a branch writes one slot instead of shifting the
 * whole stack.
 */
final class ArchLbrStack implements LbrUnit {

    static final long CTL_LBREN = 1;
    static final long CTL_OS = 1L << 1;
    static final long CTL_USR = 1L << 2;
    static final long CTL_CALL_STACK = 1L << 3;
    static final long INFO_MISPRED = 1L << 63;
    static final long INFO_CYC_CNT_VALID = 1L << 60;
    static final int INFO_BR_TYPE_SHIFT = 56;
    static final int MAX = 32;

    private final ArchLbr caps;
    private final LbrRing ring;
    long ctl;

    ArchLbrStack(ArchLbr caps, RegisterFile regs) {
        this.caps = caps;
        MsrDef depthDef = regs.def("IA32_LBR_DEPTH").orElseThrow();
        this.ring = new LbrRing(MAX, (int) regs.stored(depthDef.address()));
        regs.attach(depthDef, MsrPort.of(ring::depth, value -> {
            if (!caps.depths().contains((int) value)) {
                throw regs.fault("WRMSR", depthDef.address(), depthDef.label() + ": depth " + value
                        + " is not one CPUID.1CH:EAX[7:0] enumerates " + caps.depths());
            }
            ring.reset((int) value);
        }));
        regs.attach("IA32_LBR_CTL", MsrPort.of(() -> ctl, v -> ctl = v));
        for (int x = 0; x < MAX; x++) {
            regs.attach(0x1500L + x, entryPort(ring.from, x));
            regs.attach(0x1600L + x, entryPort(ring.to, x));
            regs.attach(0x1200L + x, entryPort(ring.info, x));
        }
    }

    /** IA32_LBR_x (x = 0 most recent) is the ring slot x records back; beyond the depth in use it reads 0 and ignores writes. */
    private MsrPort entryPort(long[] array, int x) {
        return MsrPort.of(() -> x < ring.depth() ? array[ring.slot(x)] : 0, v -> {
            if (x < ring.depth()) {
                array[ring.slot(x)] = v;
            }
        });
    }

    @Override
    public void retire(long f, long t, BranchType type, int cpl, boolean mispredicted, long cycleNow,
                       long debugctl, boolean frozen) {
        long c = ctl;
        if ((c & CTL_LBREN) == 0 || frozen || ring.depth() == 0) {
            return;
        }
        if (caps.cplFilter() && (c & (cpl == 0 ? CTL_OS : CTL_USR)) == 0) {
            return;
        }
        if (caps.branchFilter() && (c >>> type.lbrCtlBit() & 1) == 0) {
            return;
        }
        if ((c & CTL_CALL_STACK) != 0 && type == BranchType.NEAR_RET) {
            ring.pop();
            return;
        }
        int cycles = ring.cyclesSinceLastRecord(cycleNow);
        long v = 0;
        if (caps.mispredict() && mispredicted) {
            v |= INFO_MISPRED;
        }
        if (caps.timed()) {
            v |= INFO_CYC_CNT_VALID | cycles;
        }
        if (caps.branchType()) {
            v |= (long) type.archLbrBrType() << INFO_BR_TYPE_SHIFT;
        }
        ring.push(f, t, v);
    }

    @Override
    public void debugException() {
        ctl &= ~CTL_LBREN;
    }

    @Override
    public void snapshot(LbrSnapshot out) {
        out.clear();
        for (int x = 0; x < ring.depth(); x++) {
            int s = ring.slot(x);
            if (ring.empty(s)) {
                continue;
            }
            long i = ring.info[s];
            out.add(x, ring.from[s], ring.to[s], (i & INFO_MISPRED) != 0,
                    caps.timed() ? (int) (i & LbrFormat.CYCLES_MAX) : -1,
                    caps.branchType() ? typeOf((int) (i >>> INFO_BR_TYPE_SHIFT) & 0xF) : null,
                    0x1500L + x, ring.from[s], ring.to[s], i);
        }
    }

    private static final BranchType[] TYPES = BranchType.values();

    private static BranchType typeOf(int brType) {
        for (BranchType t : TYPES) {
            if (t.archLbrBrType() == brType) {
                return t;
            }
        }
        return null;
    }

    @Override
    public long records() {
        return ring.records();
    }

    @Override
    public int depth() {
        return ring.depth();
    }
}
