package dev.hwtool.report;

/**
 * What a taken branch does to the call stack, all that the folded-stack export of a branch
 * trace needs to know about it.
 */
public enum BranchFlow {
    /** A near call (direct or indirect): a frame is pushed. */
    CALL,
    /** A near return: the top frame is popped. */
    RETURN,
    /** Anything else (jumps, conditional branches): the stack stays as it is. */
    OTHER
}
