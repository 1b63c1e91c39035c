package dev.hwtool.examples;

import dev.hwtool.api.Counters;
import dev.hwtool.api.Counts;
import dev.hwtool.api.Platform;

/** Task 3: count instructions and cycles around one region of my own Java code. */
public final class CountMyCode {
    public static void main(String[] args) {
        try (Platform p = Platform.open(); Counters c = p.counters("instructions", "cycles", "task-clock")) {
            c.start();
            long x = work();
            Counts n = c.stop();
            n.counts().forEach(System.out::println); // "EVENT = N", or "EVENT: not counted (why)"
            System.out.println("(result " + (x & 1) + ")");
        }
    }

    static long work() {
        long x = 1;
        for (int i = 0; i < 5_000_000; i++) {
            x = x * 6364136223846793005L + i;
        }
        return x;
    }
}
