package dev.hwtool.sim.record;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.RecordRequest.Privilege;
import dev.hwtool.arch.branch.LbrFormat;
import dev.hwtool.arch.branch.LinuxLbrFilterMap;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.abi.PerfRecordEncoder;
import dev.hwtool.sim.cpu.LbrSnapshot;

/**
 * The branch stack of one sample, as lbr.c builds cpuc->lbr_entries from the LBR registers
 * (intel_pmu_lbr_read_64 / intel_pmu_arch_lbr_read) and then intel_pmu_lbr_filter trims it:
 * newest first; in call-stack mode reading stops at the first empty entry; mispred/predicted only
 * where the format has the flag (predicted = !mispred); cycles where the format has them; the
 * branch type as perf's PERF_BR_* ({@link BranchType#perfBrType()}), taken from IA32_LBR_x_INFO
 * on architectural LBR with branch types, else from the program text, as the kernel decodes the
 * instruction at {@code from}.
 *
 * <p>Software filter (intel_pmu_lbr_filter): entries whose type the requested filter does not
 * name, or whose privilege level the request excludes, are dropped — needed where the hardware
 * filter is coarser (Nehalem's errata map, no LBR_SELECT on Core/Bonnell, arch LBR without
 * filtering). The type sets are those of snb_lbr_sel_map, which match the kernel's X86_BR_*
 * classes; call-stack entries are kept as read.
 */
final class LbrStackView implements PerfRecordEncoder.BranchStack {

    private final long[] from = new long[64];
    private final long[] to = new long[64];
    private final long[] flags = new long[64];
    private int n;
    private long hwIndex;

    private final ProgramText text;
    private final Privilege privilege;
    private final boolean callStack;
    /** LBR_SELECT-numbered type bits the filter keeps (see {@link BranchType#lbrSelectBit()}). */
    private final long keptTypes;
    private final boolean hasMispredict;

    LbrStackView(ProgramText text, Privilege privilege, long branchSampleType, boolean hasMispredict) {
        this.text = text;
        this.privilege = privilege;
        this.callStack = (branchSampleType & PerfBranchSample.CALL_STACK) != 0;
        long types = branchSampleType & ~(PerfBranchSample.PLM_ALL | PerfBranchSample.HW_INDEX | PerfBranchSample.TYPE_SAVE);
        this.keptTypes = LinuxLbrFilterMap.SNB.mask(types).orElse(LinuxLbrFilterMap.Legacy.ANY);
        this.hasMispredict = hasMispredict;
    }

    /** Fills the view from the CPU's LBR entries (newest first) and the stack's hardware index. */
    void fill(LbrSnapshot entries, long hwIdx) {
        n = 0;
        hwIndex = hwIdx;
        for (int k = 0; k < entries.count() && n < from.length; k++) {
            if (callStack && entries.position(k) != k) {
                break; // "stop reading at the first invalid entry" in call-stack mode
            }
            long entryFrom = entries.from(k);
            BranchType type = entries.type(k) != null ? entries.type(k) : text.type(entryFrom);
            int cpl = text.cpl(entryFrom);
            if (cpl >= 0 && !(cpl == 0 ? privilege.kernel() : privilege.user())) {
                continue;
            }
            if (!callStack && type != null && (keptTypes >>> type.lbrSelectBit() & 1) == 0) {
                continue;
            }
            boolean mis = hasMispredict && entries.mispredicted(k);
            from[n] = entryFrom;
            to[n] = entries.to(k);
            flags[n] = PerfBranchEntry.flags(mis, hasMispredict && !mis, false, false,
                    Math.max(0, Math.min(entries.cycles(k), LbrFormat.CYCLES_MAX)), type == null ? 0 : type.perfBrType(),
                    0, 0, 0);
            n++;
        }
    }

    @Override
    public int size() {
        return n;
    }

    @Override
    public long from(int i) {
        return from[i];
    }

    @Override
    public long to(int i) {
        return to[i];
    }

    @Override
    public long flags(int i) {
        return flags[i];
    }

    @Override
    public long hwIndex() {
        return hwIndex;
    }
}
