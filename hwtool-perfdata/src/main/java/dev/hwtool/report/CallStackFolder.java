package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.abi.PerfRecord;

import java.util.ArrayList;
import java.util.List;

/**
 * Folded stacks from LBR call-stack samples (PERF_SAMPLE_BRANCH_CALL_STACK, SDM Vol. 3B 17.11
 * "LBR call stack"): the branch stack holds the open calls, newest first, so a sample's stack is,
 * outermost first, the functions holding each call's source, then the function of the sample's
 * ip as the leaf, as perf builds a callchain from it (tools/perf/util/machine.c,
 * lbr_callchain_add_lbr_ip: ip, then each entry's from).
 *
 * <p>Unsymbolized code is named by what the stack itself proves: the function a call entered
 * starts at that call's target, so a call made from inside it is named by the enclosing call's
 * target, and the leaf by the newest call's target; only the outermost call's caller, whose
 * entry the stack does not show, is named by the call site's address.
 */
public final class CallStackFolder {

    private final Symbols symbols;
    private final FoldedStacks stacks = new FoldedStacks();
    private long samples;
    private long skipped;

    public CallStackFolder(Symbols symbols) {
        this.symbols = symbols;
    }

    /** Counts one sample's stack; a sample without a branch stack is skipped. */
    public void add(PerfRecord.Sample s) {
        if (s.branchStack().isEmpty()) {
            skipped++;
            return;
        }
        samples++;
        stacks.path(frames(s.pid(), s.ip(), s.branchStack().get().entries())).count++;
    }

    List<String> frames(int pid, long ip, List<PerfBranchEntry> calls) {
        int n = calls.size();
        List<String> frames = new ArrayList<>(n + 1);
        for (int i = n - 1; i >= 0; i--) {
            long site = calls.get(i).from();
            long fallback = i + 1 < n ? calls.get(i + 1).to() : site;
            frames.add(name(pid, site, fallback));
        }
        frames.add(name(pid, ip, n > 0 ? calls.getFirst().to() : ip));
        return frames;
    }

    private String name(int pid, long addr, long unsymbolized) {
        return FoldedStacks.frameName(symbols.function(pid, addr).orElseGet(() -> Symbols.hex(unsymbolized)));
    }

    public FoldedStacks stacks() {
        return stacks;
    }

    /** Samples whose stack was counted. */
    public long samples() {
        return samples;
    }

    /** Samples without a branch stack. */
    public long skipped() {
        return skipped;
    }
}
