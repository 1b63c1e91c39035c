package dev.hwtool.sim.workload;

/**
 * The return predictor of the call-tree generator: a 16-entry return stack buffer, the size
 * Intel's optimization manual gives for its Core cores. A call pushes its return address
 * (the oldest entry is lost when full); a return is mispredicted when the buffer is empty
 * (deeper than 16 calls, unwinding) or its top differs from the real target.
 */
final class ReturnStackBuffer {

    static final int ENTRIES = 16;

    private final long[] entries = new long[ENTRIES];
    private int top;
    private int count;

    void push(long returnAddress) {
        top = (top + 1) & (ENTRIES - 1);
        entries[top] = returnAddress;
        count = Math.min(ENTRIES, count + 1);
    }

    /** Pops the prediction for a return to {@code target} and says whether it was wrong. */
    boolean mispredicted(long target) {
        if (count == 0) {
            return true;
        }
        long predicted = entries[top];
        top = (top - 1) & (ENTRIES - 1);
        count--;
        return predicted != target;
    }
}
