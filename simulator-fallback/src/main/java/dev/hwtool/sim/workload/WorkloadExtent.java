package dev.hwtool.sim.workload;

import java.util.Optional;
import java.util.SplittableRandom;

/** Where a generated workload's code lies: from its base, as many bytes as its layout draws. */
public final class WorkloadExtent {

    private WorkloadExtent() {
    }

    /** The code bytes of {@code w} from its base; empty for a trace, whose addresses are its file's. */
    public static Optional<Long> of(Workload w) {
        return switch (w) {
            case CallTreeWorkload c -> Optional.of(new CallTreeLayout(new SplittableRandom(c.seed()), c.depth(),
                    c.fanout(), c.base()).extent);
            case LoopWorkload l -> Optional.of(new LoopLayout(LoopShape.of(l.seed()), l.base(), l.body()).extent);
            case TraceWorkload t -> Optional.empty();
        };
    }
}
