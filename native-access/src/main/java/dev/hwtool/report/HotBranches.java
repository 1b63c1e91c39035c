package dev.hwtool.report;

import dev.hwtool.arch.perf.PerfBranchEntry;
import dev.hwtool.arch.perf.PerfRecord;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * The hottest branches of branch-stack samples, as {@code perf report --branch-stack
 * --sort=from,to} counts them: every LBR entry of every sample counts once ("a pseudo period of
 * 1", tools/perf/util/hist.c iter_add_next_branch_entry), with no de-duplication within a sample,
 * so a loop's back edge seen 16 times in one 32-entry stack counts 16. Rows are keyed by (from,
 * to): the same pair in two processes of one binary is one row.
 *
 * <p>Feed samples with {@link #add}, then ask for {@link #rows}.
 */
public final class HotBranches {

    /** How rows are ordered; ties go to the higher count, then the lower from, then the lower to. */
    public enum Order {
        /** Entries, most first (the default, perf's). */
        COUNT("count"),
        /** Mispredicted entries, most first. */
        MISPREDICTS("mispred"),
        /** Average cycles, most first (rows without cycles last). */
        CYCLES("cycles"),
        /** Source address, lowest first. */
        FROM("from");

        private final String cliName;

        Order(String cliName) {
            this.cliName = cliName;
        }

        public String cliName() {
            return cliName;
        }

        public static Optional<Order> byName(String name) {
            for (Order o : values()) {
                if (o.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                    return Optional.of(o);
                }
            }
            return Optional.empty();
        }

        public static String names() {
            StringBuilder b = new StringBuilder();
            for (Order o : values()) {
                b.append(b.isEmpty() ? "" : "|").append(o.cliName);
            }
            return b.toString();
        }
    }

    private record Key(long from, long to) {
    }

    /** Per pair: pid, type, count, mispredicted, predictionKnown, timed, cycles. */
    private static final class Tally {
        final int pid;
        final String type;
        long count;
        long mispredicted;
        long known;
        long timed;
        long cycles;

        Tally(int pid, String type) {
            this.pid = pid;
            this.type = type;
        }
    }

    private final Map<Key, Tally> tallies = new HashMap<>();
    private long samples;
    private long branchSamples;
    private long entries;

    /** Counts the entries of one sample's branch stack (a sample without one counts only as a sample). */
    public void add(PerfRecord.Sample sample) {
        samples++;
        if (sample.branchStack().isEmpty()) {
            return;
        }
        branchSamples++;
        for (PerfBranchEntry e : sample.branchStack().get().entries()) {
            entries++;
            Tally t = tallies.computeIfAbsent(new Key(e.from(), e.to()), k -> new Tally(sample.pid(), e.typeName()));
            t.count++;
            if (e.mispred()) {
                t.mispredicted++;
            }
            if (e.mispred() || e.predicted()) {
                t.known++;
            }
            if (e.cycles() != 0) {
                t.timed++;
                t.cycles += e.cycles();
            }
        }
    }

    /** Samples seen. */
    public long samples() {
        return samples;
    }

    /** Samples that carried a branch stack. */
    public long branchSamples() {
        return branchSamples;
    }

    /** LBR entries counted: the sum of every row's count. */
    public long entries() {
        return entries;
    }

    /** Every (from, to) pair, symbolized with {@code symbols}, in {@code order}. */
    public List<HotBranch> rows(Symbols symbols, Order order) {
        List<HotBranch> rows = new ArrayList<>(tallies.size());
        tallies.forEach((k, t) -> rows.add(new HotBranch(t.pid, k.from(), k.to(), symbols.describe(t.pid, k.from()),
                symbols.describe(t.pid, k.to()), t.type, t.count, t.mispredicted, t.known, t.timed, t.cycles)));
        rows.sort(comparator(order));
        return rows;
    }

    static Comparator<HotBranch> comparator(Order order) {
        Comparator<HotBranch> ties = Comparator.comparingLong(HotBranch::count).reversed()
                .thenComparing(HotBranch::from, Long::compareUnsigned)
                .thenComparing(HotBranch::to, Long::compareUnsigned);
        return switch (order) {
            case COUNT -> ties;
            case MISPREDICTS -> Comparator.comparingLong(HotBranch::mispredicted).reversed().thenComparing(ties);
            case CYCLES -> Comparator.comparingDouble((HotBranch r) -> r.averageCycles().orElse(-1)).reversed()
                    .thenComparing(ties);
            case FROM -> Comparator.comparing(HotBranch::from, Long::compareUnsigned)
                    .thenComparing(HotBranch::to, Long::compareUnsigned);
        };
    }
}
