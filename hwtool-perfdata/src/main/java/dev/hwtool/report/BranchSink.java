package dev.hwtool.report;

/**
 * Receives a branch trace in execution order, one taken branch per call, without allocation:
 * traces run to millions of branches.
 */
@FunctionalInterface
public interface BranchSink {

    /**
     * @param pid  the process (-1 when the recording does not say)
     * @param tid  the thread; consecutive branches of one thread are a path
     * @param from the branch's source
     * @param to   its target
     */
    void branch(int pid, int tid, long from, long to, Prediction prediction);

    /** Feeds every branch to each of {@code sinks}, in order. */
    static BranchSink all(BranchSink... sinks) {
        BranchSink[] copy = sinks.clone();
        return (pid, tid, from, to, p) -> {
            for (BranchSink s : copy) {
                s.branch(pid, tid, from, to, p);
            }
        };
    }
}
