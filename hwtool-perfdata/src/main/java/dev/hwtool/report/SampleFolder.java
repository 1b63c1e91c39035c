package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.PerfRecord;

import java.util.List;

/**
 * Folded stacks of a sampling recording ({@code hwtool record}, {@code perf record -e EVENT}):
 * with LBR call stacks (recorded with the call-stack branch filter) each sample's stack as
 * {@link CallStackFolder} builds it; otherwise one frame per sample, the function holding its IP
 * named as {@link HotSamples}' rows name it, i.e. a flat profile. Counts are samples.
 */
public final class SampleFolder {

    private final Symbols symbols;
    private final CallStackFolder callStacks;
    private final FoldedStacks flat = new FoldedStacks();
    private long samples;

    /**
     * @param callStack whether the recording's branch stacks are LBR call stacks
     *                  ({@link RecordingKind#callStack})
     */
    public SampleFolder(Symbols symbols, boolean callStack) {
        this.symbols = symbols;
        this.callStacks = callStack ? new CallStackFolder(symbols) : null;
    }

    public void add(PerfRecord.Sample s) {
        samples++;
        if (callStacks != null && s.branchStack().isPresent()) {
            callStacks.add(s);
            return;
        }
        String name = symbols.function(s.pid(), s.ip()).orElseGet(() -> HotSamples.unnamed(symbols, s.pid(), s.ip(), s.cpumode()));
        (callStacks != null ? callStacks.stacks() : flat).path(List.of(FoldedStacks.frameName(name))).count++;
    }

    public FoldedStacks stacks() {
        return callStacks != null ? callStacks.stacks() : flat;
    }

    /** Whether the stacks are call stacks rather than one frame per sample. */
    public boolean callStacks() {
        return callStacks != null;
    }

    public long samples() {
        return samples;
    }
}
