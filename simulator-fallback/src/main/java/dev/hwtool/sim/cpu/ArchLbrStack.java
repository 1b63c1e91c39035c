package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.BranchType;
import dev.hwtool.arch.branch.LbrFormat;
import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.msr.MsrDef;

import java.util.ArrayList;
import java.util.List;

/**
 * Architectural LBR (CPUID.(07H,0):EDX[19], leaf 1CH; hardware-facts §3.7).
 *
 * <ul>
 * <li>IA32_LBR_CTL bits <em>enable</em>: LBREn, OS (CPL 0), USR (CPL &gt; 0), one bit per branch
 *     type ({@link BranchType#lbrCtlBit()}), CALL_STACK. Where CPUID.1CH:EBX says the CPU has
 *     no CPL or branch-type filtering, those bits are reserved and every CPL or type is recorded.
 * <li>Recording also stops while IA32_PERF_GLOBAL_STATUS.LBR_FRZ is set.
 * <li>No TOS register: IA32_LBR_0 is the most recent entry, IA32_LBR_1 the one before, up to
 *     IA32_LBR_DEPTH - 1 (as Linux lbr.c reads them; hardware-facts §3.7).
 * <li>A write of IA32_LBR_DEPTH clears every entry; only depths CPUID.1CH:EAX[7:0] enumerates
 *     are accepted (#GP otherwise, Linux's wrmsrl_safe check).
 * <li>INFO: MISPRED [63] (with CPUID.1CH:ECX[0]), CYC_CNT [15:0] and CYC_CNT_VALID [60] (with
 *     ECX[1], timed LBR), BR_TYPE [59:56] (with ECX[2]).
 * <li>A #DB clears LBR_CTL.LBREn, as it clears IA32_DEBUGCTL.LBR for legacy LBR (the
 *     simulator's reading of the arch-LBR chapter; the entries stay).
 * <li>Call-stack mode: a near return pops the most recent entry (its slot is cleared).
 * </ul>
 * The entries live in a ring indexed from {@code head}, so a branch writes one slot instead of
 * shifting the whole stack.
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
    private final long[] from = new long[MAX];
    private final long[] to = new long[MAX];
    private final long[] info = new long[MAX];
    private int depth;
    private int head;
    long ctl;
    private long lastRecordCycle;
    private long records;

    ArchLbrStack(ArchLbr caps, RegisterFile regs) {
        this.caps = caps;
        MsrDef depthDef = regs.def("IA32_LBR_DEPTH").orElseThrow();
        this.depth = (int) regs.stored(depthDef.address());
        regs.attach(depthDef, new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                return depth;
            }

            @Override
            public void write(MsrDef def, long value) {
                if (!caps.depths().contains((int) value)) {
                    throw regs.fault("WRMSR", def.address(), def.label() + ": depth " + value
                            + " is not one CPUID.1CH:EAX[7:0] enumerates " + caps.depths());
                }
                setDepth((int) value);
            }
        });
        regs.def("IA32_LBR_CTL").ifPresent(d -> regs.attach(d, new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                return ctl;
            }

            @Override
            public void write(MsrDef def, long value) {
                ctl = value;
            }
        }));
        for (int x = 0; x < MAX; x++) {
            int e = x;
            regs.def(0x1500L + x).ifPresent(d -> regs.attach(d, port(from, e)));
            regs.def(0x1600L + x).ifPresent(d -> regs.attach(d, port(to, e)));
            regs.def(0x1200L + x).ifPresent(d -> regs.attach(d, port(info, e)));
        }
    }

    private void setDepth(int d) {
        depth = d;
        head = 0;
        java.util.Arrays.fill(from, 0);
        java.util.Arrays.fill(to, 0);
        java.util.Arrays.fill(info, 0);
    }

    /** IA32_LBR_x (x = 0 most recent) → ring slot; -1 beyond the current depth. */
    private int slot(int x) {
        return x < depth ? Math.floorMod(head - x, depth) : -1;
    }

    private RegisterFile.MsrPort port(long[] array, int x) {
        return new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                int s = slot(x);
                return s < 0 ? 0 : array[s];
            }

            @Override
            public void write(MsrDef def, long value) {
                int s = slot(x);
                if (s >= 0) {
                    array[s] = value;
                }
            }
        };
    }

    @Override
    public void retire(long f, long t, BranchType type, int cpl, boolean mispredicted, long cycleNow,
                       long debugctl, boolean frozen) {
        long c = ctl;
        if ((c & CTL_LBREN) == 0 || frozen || depth == 0) {
            return;
        }
        if (caps.cplFilter() && (c & (cpl == 0 ? CTL_OS : CTL_USR)) == 0) {
            return;
        }
        if (caps.branchFilter() && (c >>> type.lbrCtlBit() & 1) == 0) {
            return;
        }
        if ((c & CTL_CALL_STACK) != 0 && type == BranchType.NEAR_RET) {
            from[head] = 0;
            to[head] = 0;
            info[head] = 0;
            head = head == 0 ? depth - 1 : head - 1;
            return;
        }
        int cycles = (int) Math.min(cycleNow - lastRecordCycle, LbrFormat.CYCLES_MAX);
        lastRecordCycle = cycleNow;
        int i = head + 1 == depth ? 0 : head + 1;
        head = i;
        from[i] = f;
        to[i] = t;
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
        info[i] = v;
        records++;
    }

    @Override
    public void debugException() {
        ctl &= ~CTL_LBREN;
    }

    @Override
    public List<LbrEntry> entries() {
        List<LbrEntry> out = new ArrayList<>();
        for (int x = 0; x < depth; x++) {
            int s = slot(x);
            if (from[s] == 0 && to[s] == 0) {
                continue;
            }
            long i = info[s];
            out.add(new LbrEntry(x, from[s], to[s], (i & INFO_MISPRED) != 0,
                    caps.timed() ? (int) (i & LbrFormat.CYCLES_MAX) : -1,
                    caps.branchType() ? typeOf((int) (i >>> INFO_BR_TYPE_SHIFT) & 0xF) : null,
                    0x1500L + x, from[s], to[s], i));
        }
        return out;
    }

    private static BranchType typeOf(int brType) {
        for (BranchType t : BranchType.values()) {
            if (t.archLbrBrType() == brType) {
                return t;
            }
        }
        return null;
    }

    @Override
    public long records() {
        return records;
    }

    @Override
    public int depth() {
        return depth;
    }
}
