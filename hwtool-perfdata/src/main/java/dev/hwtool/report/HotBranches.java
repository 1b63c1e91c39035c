package dev.hwtool.report;

import dev.hwtool.api.HotBranch;
import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfSample;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
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

    private static final String[] TYPES = {"UNKNOWN", "COND", "UNCOND", "IND", "CALL", "IND_CALL", "RET", "SYSCALL",
            "SYSRET", "COND_CALL", "COND_RET", "ERET", "IRQ", "SERROR", "NO_TX", "EXTEND_ABI"};

    /*
     * The tallies: an open-addressing table (linear probing, power-of-two capacity, at most half
     * full) over parallel primitive arrays keyed by (from, to), so that counting an entry allocates
     * nothing and touches a few cache lines. Memory grows with the distinct pairs, not the file.
     * Slot i is used when used[i]; a pair's first pid and PERF_BR_* type are kept to symbolize it.
     */
    private boolean[] used = new boolean[1 << 10];
    private long[] froms = new long[used.length];
    private long[] tos = new long[used.length];
    private int[] pids = new int[used.length];
    private byte[] types = new byte[used.length];
    private long[] counts = new long[used.length];
    private long[] mispredicted = new long[used.length];
    private long[] known = new long[used.length];
    private long[] timed = new long[used.length];
    private long[] cycles = new long[used.length];
    private int pairs;
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
        int pid = sample.pid();
        for (PerfBranchEntry e : sample.branchStack().get().entries()) {
            entry(pid, e.from(), e.to(), e.flags());
        }
    }

    /**
     * Counts the sample under {@code c} as {@link #add(PerfRecord.Sample)} does, straight from the
     * record's bytes: no record value, no allocation (the fast path of a large recording).
     */
    public void add(PerfRecordCursor c) {
        samples++;
        if (!c.format().samples(PerfSample.BRANCH_STACK)) {
            return;
        }
        branchSamples++;
        int pid = c.pid();
        int n = c.branchCount();
        for (int i = 0; i < n; i++) {
            entry(pid, c.branchFrom(i), c.branchTo(i), c.branchFlags(i));
        }
    }

    /** One LBR entry; {@code flags} is perf_branch_entry's third word (PerfBranchEntry's bitfields). */
    private void entry(int pid, long from, long to, long flags) {
        entries++;
        int mask = used.length - 1;
        int i = hash(from, to) & mask;
        while (used[i] && (froms[i] != from || tos[i] != to)) {
            i = (i + 1) & mask;
        }
        if (!used[i]) {
            used[i] = true;
            froms[i] = from;
            tos[i] = to;
            pids[i] = pid;
            types[i] = (byte) ((flags >>> 20) & 0xF);
            if (++pairs * 2 > used.length) {
                grow();
                i = slot(from, to);
            }
        }
        counts[i]++;
        // mispred is bit 0, predicted bit 1, cycles bits 4-19 (include/uapi/linux/perf_event.h).
        mispredicted[i] += flags & 1;
        known[i] += (flags | flags >>> 1) & 1;
        long cyc = (flags >>> 4) & 0xFFFF;
        if (cyc != 0) {
            timed[i]++;
            cycles[i] += cyc;
        }
    }

    /** A 64-bit mix of the pair (the murmur3 finalizer's constants), top bits used. */
    private static int hash(long from, long to) {
        long h = from * 0x9E3779B97F4A7C15L ^ to;
        h ^= h >>> 33;
        h *= 0xFF51AFD7ED558CCDL;
        h ^= h >>> 33;
        return (int) h;
    }

    private int slot(long from, long to) {
        int mask = used.length - 1;
        int i = hash(from, to) & mask;
        while (froms[i] != from || tos[i] != to || !used[i]) {
            i = (i + 1) & mask;
        }
        return i;
    }

    private void grow() {
        boolean[] oUsed = used;
        long[] oFroms = froms, oTos = tos, oCounts = counts, oMis = mispredicted, oKnown = known, oTimed = timed,
                oCycles = cycles;
        int[] oPids = pids;
        byte[] oTypes = types;
        int cap = oUsed.length * 2;
        used = new boolean[cap];
        froms = new long[cap];
        tos = new long[cap];
        pids = new int[cap];
        types = new byte[cap];
        counts = new long[cap];
        mispredicted = new long[cap];
        known = new long[cap];
        timed = new long[cap];
        cycles = new long[cap];
        int mask = cap - 1;
        for (int j = 0; j < oUsed.length; j++) {
            if (!oUsed[j]) {
                continue;
            }
            int i = hash(oFroms[j], oTos[j]) & mask;
            while (used[i]) {
                i = (i + 1) & mask;
            }
            used[i] = true;
            froms[i] = oFroms[j];
            tos[i] = oTos[j];
            pids[i] = oPids[j];
            types[i] = oTypes[j];
            counts[i] = oCounts[j];
            mispredicted[i] = oMis[j];
            known[i] = oKnown[j];
            timed[i] = oTimed[j];
            cycles[i] = oCycles[j];
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
        List<HotBranch> rows = new ArrayList<>(pairs);
        for (int i = 0; i < used.length; i++) {
            if (used[i]) {
                rows.add(new HotBranch(pids[i], froms[i], tos[i], symbols.describe(pids[i], froms[i]),
                        symbols.describe(pids[i], tos[i]), TYPES[types[i]], counts[i], mispredicted[i], known[i],
                        timed[i], cycles[i]));
            }
        }
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
