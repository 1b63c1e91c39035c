package dev.hwtool.report;

import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * Folded stacks from a branch trace: a shadow call stack per thread, pushed by each call and
 * popped by each return (the {@link BranchClassifier} tells which is which, BTS records carry no
 * type), and every branch a sample of the stack it was taken in.
 *
 * <p>The trace starts mid-program, so the stack starts as the function of the first branch's
 * source; a return from that bottom frame reveals its caller, which becomes the new bottom. A
 * jump into another symbolized function (a tail call) replaces the top frame. Frames are the
 * called functions' names, or their entry addresses (call targets) in hex when unsymbolized.
 */
public final class TraceFolder implements BranchSink {

    private final Symbols symbols;
    private final BranchClassifier classifier;
    private final FoldedStacks stacks = new FoldedStacks();
    private final Map<Integer, FoldedStacks.Frame> top = new HashMap<>();
    private long branches;
    private long calls;
    private long returns;
    private long unclassified;

    public TraceFolder(Symbols symbols, BranchClassifier classifier) {
        this.symbols = symbols;
        this.classifier = classifier;
    }

    @Override
    public void branch(int pid, int tid, long from, long to, Prediction prediction) {
        branches++;
        FoldedStacks.Frame f = top.get(tid);
        if (f == null) {
            f = stacks.root.child(name(pid, from));
        }
        f.count++;
        Optional<BranchFlow> flow = classifier.classify(pid, from);
        if (flow.isEmpty()) {
            unclassified++;
        }
        switch (flow.orElse(BranchFlow.OTHER)) {
            case CALL -> {
                calls++;
                f = f.child(name(pid, to));
            }
            case RETURN -> {
                returns++;
                f = f.parent.root() ? stacks.root.child(name(pid, to)) : f.parent;
            }
            case OTHER -> {
                Optional<String> target = symbols.function(pid, to);
                if (target.isPresent() && !target.get().equals(f.name)
                        && !target.equals(symbols.function(pid, from))) {
                    f = f.parent.child(FoldedStacks.frameName(target.get()));
                }
            }
        }
        top.put(tid, f);
    }

    private String name(int pid, long addr) {
        return FoldedStacks.frameName(symbols.function(pid, addr).orElseGet(() -> Symbols.hex(addr)));
    }

    public FoldedStacks stacks() {
        return stacks;
    }

    public long branches() {
        return branches;
    }

    public long calls() {
        return calls;
    }

    public long returns() {
        return returns;
    }

    /** Branches the classifier could not classify (taken as neither call nor return). */
    public long unclassified() {
        return unclassified;
    }
}
