package dev.hwtool.sim.cpu;

import dev.hwtool.api.BranchType;
import dev.hwtool.arch.branch.LbrFormat;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.sim.cpu.RegisterFile.MsrPort;

/**
 * The model-specific LBR stack (SDM Vol. 3B 17.5–17.13): {@code depth}
 * FROM/TO (and, for LBR_FMT 5/7, INFO) registers at the profile's addresses, MSR_LASTBRANCH_TOS
 * and, from Nehalem (and on Silvermont), MSR_LBR_SELECT.
 *
 * <ul>
 * <li>Records while IA32_DEBUGCTL.LBR is set and IA32_PERF_GLOBAL_STATUS.LBR_FRZ clear
 *     (SDM 18.2.4.1: "(IA32_DEBUGCTL.LBR &amp; (!IA32_PERF_GLOBAL_STATUS.LBR_FRZ)) = 1").
 * <li>TOS is incremented <em>before</em> the entry is written, wrapping at depth (§3.7).
 * <li>MSR_LBR_SELECT bits 0–8 suppress: CPL_EQ_0 for branches at CPL 0, CPL_NEQ_0 for CPL &gt; 0,
 *     and one bit per branch type ({@link BranchType#lbrSelectBit()}).
 * <li>Call-stack mode (EN_CALLSTACK, Haswell and later, SDM 17.9): a near return that the
 *     filter lets through pops the stack instead of being recorded — the entry at TOS is
 *     cleared and TOS moves back. Clearing the popped entry is the simulator's choice: Linux
 *     lbr.c reads a call stack "until invalid entry (0s) is detected". Other branch types
 *     follow the filter (Linux suppresses them; a script may not).
 * <li>Flags and cycle counts as the LBR format stores them ({@link LbrFormat}); the cycle count
 *     is the cycles since the previous recorded branch, saturating at 0xFFFF.
 * </ul>
 */
final class LegacyLbrStack implements LbrUnit {

    static final long DEBUGCTL_LBR = 1;
    static final int SELECT_CPL_EQ_0 = 0;
    static final int SELECT_CPL_NEQ_0 = 1;
    static final long SELECT_EN_CALLSTACK = 1L << 9;

    private final int depth;
    private final int format;
    private final long fromMsr;
    private final LbrRing ring;
    long select;

    LegacyLbrStack(LegacyLbr geometry, int format, RegisterFile regs) {
        this.depth = geometry.depth();
        this.format = format;
        this.fromMsr = geometry.fromMsr();
        this.ring = new LbrRing(depth, depth);
        long infoMsr = LbrFormat.hasInfo(format) ? geometry.infoMsr() : -1;
        for (int i = 0; i < depth; i++) {
            int e = i;
            regs.attach(fromMsr + i, MsrPort.of(() -> ring.from[e], v -> ring.from[e] = v));
            regs.attach(geometry.toMsr() + i, MsrPort.of(() -> ring.to[e], v -> ring.to[e] = v));
            if (infoMsr >= 0) {
                regs.attach(infoMsr + i, MsrPort.of(() -> ring.info[e], v -> ring.info[e] = v));
            }
        }
        regs.attach("MSR_LASTBRANCH_TOS", MsrPort.of(() -> ring.head, v -> ring.head = (int) (v % depth)));
        regs.attach("MSR_LBR_SELECT", MsrPort.of(() -> select, v -> select = v));
    }

    @Override
    public void retire(long f, long t, BranchType type, int cpl, boolean mispredicted, long cycleNow,
                       long debugctl, boolean frozen) {
        if ((debugctl & DEBUGCTL_LBR) == 0 || frozen) {
            return;
        }
        long s = select;
        if ((s >>> (cpl == 0 ? SELECT_CPL_EQ_0 : SELECT_CPL_NEQ_0) & 1) != 0 || (s >>> type.lbrSelectBit() & 1) != 0) {
            return;
        }
        if ((s & SELECT_EN_CALLSTACK) != 0 && type == BranchType.NEAR_RET) {
            ring.pop();
            return;
        }
        int cycles = ring.cyclesSinceLastRecord(cycleNow);
        ring.push(LbrFormat.encodeFrom(format, f, t, mispredicted), LbrFormat.encodeTo(format, t, cycles),
                LbrFormat.encodeInfo(format, mispredicted, cycles));
    }

    @Override
    public void debugException() {
        // The processor clears IA32_DEBUGCTL.LBR itself (LogicalProcessor).
    }

    @Override
    public void snapshot(LbrSnapshot out) {
        out.clear();
        for (int k = 0; k < depth; k++) {
            int i = ring.slot(k);
            if (ring.empty(i)) {
                continue;
            }
            long from = ring.from[i];
            long to = ring.to[i];
            long info = ring.info[i];
            out.add(k, LbrFormat.decodeFrom(format, from), LbrFormat.decodeTo(format, from, to),
                    LbrFormat.decodeMispredicted(format, from, info), LbrFormat.decodeCycles(format, to, info),
                    null, fromMsr + i, from, to, info);
        }
    }

    @Override
    public long records() {
        return ring.records();
    }

    @Override
    public int depth() {
        return depth;
    }

    int format() {
        return format;
    }
}
