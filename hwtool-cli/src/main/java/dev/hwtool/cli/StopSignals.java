package dev.hwtool.cli;

import dev.hwtool.linux.sys.ShutdownSignals;
import dev.hwtool.linux.sys.ShutdownSignals.Sig;

import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

/**
 * Signals as a request to stop, for commands that run until interrupted: instead of the process
 * ending wherever it is (between two half-written rows, with a mount still up), the handler
 * records the first signal, wakes the waiting thread and runs {@code onStop} (unmount, pass the
 * signal on to a child); the command then finishes its step, cleans up and returns
 * {@link #status()}, 128 + N as for any signal (README, "Exit codes"). The previous handlers come
 * back on close. Through {@link ShutdownSignals}: in force from the launcher on.
 */
final class StopSignals implements AutoCloseable {

    private final Thread waiter;
    private final Consumer<Sig> onStop;
    private final ShutdownSignals.Registration registration;
    private volatile Sig signal;

    private StopSignals(Thread waiter, Consumer<Sig> onStop, Sig... sigs) {
        this.waiter = waiter;
        this.onStop = onStop;
        this.registration = ShutdownSignals.handle(this::stop, sigs);
    }

    /** Stops on SIGHUP, SIGINT and SIGTERM: {@code onStop} runs (on the handler's thread) for each. */
    static StopSignals install(Thread waiter, Consumer<Sig> onStop) {
        return new StopSignals(waiter, onStop, Sig.HUP, Sig.INT, Sig.TERM);
    }

    /** Stops on {@code sigs} only; the others keep ending the process through its shutdown hooks. */
    static StopSignals only(Thread waiter, Sig... sigs) {
        return new StopSignals(waiter, s -> { }, sigs);
    }

    private void stop(Sig sig) {
        synchronized (this) {
            if (signal == null) {
                signal = sig;
            }
        }
        LockSupport.unpark(waiter);
        onStop.accept(sig);
    }

    /** Whether a signal arrived. */
    boolean requested() {
        return signal != null;
    }

    /** The first signal that arrived, or null. */
    Sig signal() {
        return signal;
    }

    /** 128 + the first signal's number; {@code otherwise} when none arrived. */
    int status(int otherwise) {
        Sig s = signal;
        return s == null ? otherwise : s.status();
    }

    /** Sleeps until System.nanoTime() reaches {@code deadline} or a signal arrives. */
    void sleepUntil(long deadline) {
        long left;
        while (signal == null && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    @Override
    public void close() {
        registration.close();
    }
}
