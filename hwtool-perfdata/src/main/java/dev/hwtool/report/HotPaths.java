package dev.hwtool.report;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The most frequent sequences of {@code length} consecutive taken branches of a trace: a window
 * slides over each thread's branches and every position counts once, so a 3-branch loop body
 * repeated 100 times gives each of its rotations about 100. Length 1 is the hot-branch table.
 */
public final class HotPaths implements BranchSink {

    public static final int DEFAULT_LENGTH = 4;
    /** The longest path: each thread keeps a ring of 2 × length addresses, and a path is a map key. */
    public static final int MAX_LENGTH = 4096;

    /** The last {@code length} branches of one thread. */
    private static final class Window {
        final long[] ring;
        int next;
        long filled;

        Window(int length) {
            ring = new long[2 * length];
        }
    }

    /** A path's addresses, from/to pairs oldest first; value semantics for the map. */
    private record Key(long[] addrs) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && Arrays.equals(addrs, k.addrs);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(addrs);
        }
    }

    private static final class Tally {
        final int pid;
        long count;

        Tally(int pid) {
            this.pid = pid;
        }
    }

    private final int length;
    private final Map<Integer, Window> windows = new HashMap<>();
    private final Map<Key, Tally> tallies = new HashMap<>();
    private long paths;

    /** @param length branches per path, at least 1 */
    public HotPaths(int length) {
        if (length < 1) {
            throw new IllegalArgumentException("a path needs at least one branch, got " + length);
        }
        this.length = length;
    }

    public int length() {
        return length;
    }

    @Override
    public void branch(int pid, int tid, long from, long to, Prediction prediction) {
        Window w = windows.computeIfAbsent(tid, t -> new Window(length));
        w.ring[2 * w.next] = from;
        w.ring[2 * w.next + 1] = to;
        w.next = (w.next + 1) % length;
        w.filled++;
        if (w.filled < length) {
            return;
        }
        // w.next is now the oldest slot
        long[] addrs = new long[2 * length];
        for (int i = 0; i < length; i++) {
            int slot = (w.next + i) % length;
            addrs[2 * i] = w.ring[2 * slot];
            addrs[2 * i + 1] = w.ring[2 * slot + 1];
        }
        tallies.computeIfAbsent(new Key(addrs), k -> new Tally(pid)).count++;
        paths++;
    }

    /** Windows counted: the sum of every path's count. */
    public long paths() {
        return paths;
    }

    /** Distinct paths. */
    public int distinct() {
        return tallies.size();
    }

    /**
     * The {@code limit} most frequent paths, symbolized; ties in address order.
     *
     * @param limit at most this many rows (Integer.MAX_VALUE for all)
     */
    public List<HotPath> top(Symbols symbols, int limit) {
        List<Map.Entry<Key, Tally>> entries = new ArrayList<>(tallies.entrySet());
        entries.sort((a, b) -> {
            int c = Long.compare(b.getValue().count, a.getValue().count);
            return c != 0 ? c : Arrays.compareUnsigned(a.getKey().addrs, b.getKey().addrs);
        });
        List<HotPath> out = new ArrayList<>(Math.min(limit, entries.size()));
        for (Map.Entry<Key, Tally> e : entries.subList(0, Math.min(limit, entries.size()))) {
            int pid = e.getValue().pid;
            long[] a = e.getKey().addrs;
            List<HotPath.Hop> hops = new ArrayList<>(length);
            for (int i = 0; i < length; i++) {
                hops.add(new HotPath.Hop(a[2 * i], a[2 * i + 1], symbols.describe(pid, a[2 * i]),
                        symbols.describe(pid, a[2 * i + 1])));
            }
            out.add(new HotPath(pid, hops, e.getValue().count));
        }
        return out;
    }
}
