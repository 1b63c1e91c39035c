package dev.hwtool.sim.cpu;

import dev.hwtool.arch.branch.BranchType;
import dev.hwtool.arch.branch.LbrFormat;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.arch.msr.MsrDef;

import java.util.ArrayList;
import java.util.List;

/**
 * The model-specific LBR stack (SDM Vol. 3B 17.5–17.13; hardware-facts §3.7): {@code depth}
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
    private final long toMsr;
    private final long infoMsr;
    private final long[] from;
    private final long[] to;
    private final long[] info;
    private int tos;
    long select;
    private long lastRecordCycle;
    private long records;

    LegacyLbrStack(LegacyLbr geometry, int format, RegisterFile regs) {
        this.depth = geometry.depth();
        this.format = format;
        this.fromMsr = geometry.fromMsr();
        this.toMsr = geometry.toMsr();
        this.infoMsr = LbrFormat.hasInfo(format) ? geometry.infoMsr() : -1;
        this.from = new long[depth];
        this.to = new long[depth];
        this.info = new long[depth];
        for (int i = 0; i < depth; i++) {
            int e = i;
            regs.def(fromMsr + i).ifPresent(d -> regs.attach(d, port(from, e)));
            regs.def(toMsr + i).ifPresent(d -> regs.attach(d, port(to, e)));
            if (infoMsr >= 0) {
                regs.def(infoMsr + i).ifPresent(d -> regs.attach(d, port(info, e)));
            }
        }
        regs.def("MSR_LASTBRANCH_TOS").ifPresent(d -> regs.attach(d, new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                return tos;
            }

            @Override
            public void write(MsrDef def, long value) {
                tos = (int) (value % depth);
            }
        }));
        regs.def("MSR_LBR_SELECT").ifPresent(d -> regs.attach(d, new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                return select;
            }

            @Override
            public void write(MsrDef def, long value) {
                select = value;
            }
        }));
    }

    private static RegisterFile.MsrPort port(long[] array, int index) {
        return new RegisterFile.MsrPort() {
            @Override
            public long read(MsrDef def) {
                return array[index];
            }

            @Override
            public void write(MsrDef def, long value) {
                array[index] = value;
            }
        };
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
            from[tos] = 0;
            to[tos] = 0;
            info[tos] = 0;
            tos = tos == 0 ? depth - 1 : tos - 1;
            return;
        }
        int cycles = (int) Math.min(cycleNow - lastRecordCycle, LbrFormat.CYCLES_MAX);
        lastRecordCycle = cycleNow;
        int i = tos + 1 == depth ? 0 : tos + 1;
        tos = i;
        from[i] = LbrFormat.encodeFrom(format, f, t, mispredicted);
        to[i] = LbrFormat.encodeTo(format, t, cycles);
        info[i] = LbrFormat.encodeInfo(format, mispredicted, cycles);
        records++;
    }

    @Override
    public void debugException() {
        // The processor clears IA32_DEBUGCTL.LBR itself (SimulatedCpu).
    }

    @Override
    public List<LbrEntry> entries() {
        List<LbrEntry> out = new ArrayList<>();
        for (int k = 0; k < depth; k++) {
            int i = Math.floorMod(tos - k, depth);
            if (from[i] == 0 && to[i] == 0) {
                continue;
            }
            out.add(new LbrEntry(k, LbrFormat.decodeFrom(format, from[i]), LbrFormat.decodeTo(format, from[i], to[i]),
                    LbrFormat.decodeMispredicted(format, from[i], info[i]), LbrFormat.decodeCycles(format, to[i], info[i]),
                    null, fromMsr + i, from[i], to[i], info[i]));
        }
        return out;
    }

    @Override
    public long records() {
        return records;
    }

    @Override
    public int depth() {
        return depth;
    }

    int format() {
        return format;
    }

    int tos() {
        return tos;
    }
}
