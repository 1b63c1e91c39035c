package dev.hwtool.api;

import java.util.List;

/**
 * Counting hardware and software events over a region of the caller's own code, in process:
 * {@link #start()}, the region, {@link #stop()}. On hardware each event is a perf counter of
 * this thread (or of every thread of the process, {@link Scope#PROCESS}) opened disabled, reset
 * and enabled by {@code start()}, disabled and read by {@code stop()}; on the simulator the
 * events are programmed on the simulated CPU's counters as the kernel programs them, and count
 * what that CPU retires between the two calls (e.g. a workload {@code SimulatedPlatform.run}
 * drives). The caller's own Java code runs on the host, not on a simulated CPU: a region in which
 * the simulated CPU retired nothing is "not counted: the simulator counts only simulated work",
 * never 0.
 *
 * <p>An event the machine cannot count is not an error when the counters are opened: its
 * {@link Count} carries the cause and remedy, and {@link Count#value()} throws them. No
 * unsupported event ever reads as zero.
 *
 * <pre>{@code
 * try (Platform p = Platform.open(); Counters c = p.counters("instructions", "cycles")) {
 *     c.start(); work(); Counts n = c.stop();
 *     System.out.println(n.get("instructions"));
 * }
 * }</pre>
 */
public interface Counters extends AutoCloseable {

    /** Whose events are counted. */
    enum Scope {
        /** The thread that opened the counters (perf_event_open pid 0). */
        THREAD,
        /**
         * Every thread of this process that exists when the counters are opened, one perf event
         * per thread summed, as {@code perf stat -p PID} opens one per thread (threads started
         * later are not counted). On the simulator, the same as {@link #THREAD}.
         */
        PROCESS
    }

    /** The events as asked for, in order. */
    List<String> events();

    /** Resets every counter to zero and starts counting. */
    void start();

    /**
     * Stops counting and returns the counts since {@link #start()}.
     *
     * @throws HwException           OS_ERROR when a counter cannot be read; UNSUPPORTED when the
     *                               platform these counters came from has been closed
     * @throws IllegalStateException before the first {@link #start()}: nothing was counted, which
     *                               is not a count of zero
     */
    Counts stop();

    /**
     * The counts so far, without stopping.
     *
     * @throws IllegalStateException before the first {@link #start()}
     */
    Counts read();

    /** Closes every counter; idempotent. */
    @Override
    void close();
}
