package dev.hwtool.cli;

import sun.misc.Signal;
import sun.misc.SignalHandler;

import java.util.concurrent.locks.LockSupport;

/**
 * Turns SIGINT (Ctrl-C) into a request to stop, for commands that run until interrupted. The
 * JVM's own SIGINT handling runs the shutdown hooks and exits with 130 wherever the main thread
 * is, possibly between two half-written rows; with this handler installed the loop finishes its
 * current row, flushes, and returns normally. The previous handler is put back on close.
 */
final class SigintStop implements AutoCloseable {

    private static final Signal INT = new Signal("INT");

    private final Thread waiter;
    private final SignalHandler previous;
    private volatile boolean requested;

    private SigintStop(Thread waiter, boolean install) {
        this.waiter = waiter;
        SignalHandler prev = null;
        if (install) {
            try {
                prev = Signal.handle(INT, sig -> stop());
            } catch (IllegalArgumentException | UnsupportedOperationException e) {
                // The VM reserves SIGINT (-Xrs) or the platform has none: Ctrl-C then ends the JVM as usual.
            }
        }
        this.previous = prev;
    }

    /** Installs the handler; stop() wakes {@code waiter} from {@link #sleepUntil(long)}. */
    static SigintStop install(Thread waiter) {
        return new SigintStop(waiter, true);
    }

    /** Whether SIGINT arrived (or {@link #stop()} was called). */
    boolean requested() {
        return requested;
    }

    /** Asks the loop to stop after the row it is writing. */
    void stop() {
        requested = true;
        LockSupport.unpark(waiter);
    }

    /** Sleeps until System.nanoTime() reaches {@code deadline} or a stop is requested. */
    void sleepUntil(long deadline) {
        long left;
        while (!requested && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    @Override
    public void close() {
        if (previous != null) {
            Signal.handle(INT, previous);
        }
    }
}
