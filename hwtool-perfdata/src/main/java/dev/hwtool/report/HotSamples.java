package dev.hwtool.report;

import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import dev.hwtool.record.CodeLocation;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Where the samples of one sampling event fell, as {@code perf report} shows them: each row's
 * overhead is the sum of its samples' periods over the sum of all periods (tools/perf/util/hist.c
 * counts he_stat.period, which is what "Overhead" divides), so frequency-mode samples of
 * different periods weigh what they measured. Rows are keyed by the function holding the IP
 * (perf report's default view, {@link By#SYMBOL}) or by the exact IP ({@link By#IP}, the view
 * precise sampling is for). A sample whose misc has PERF_RECORD_MISC_EXACT_IP was taken with
 * its IP at the instruction that caused the event (PEBS with precise_ip, arch/x86/events/intel/ds.c
 * setup_pebs_fixed_sample_data); each row counts them.
 *
 * <p>Feed samples with {@link #add}, then ask for {@link #rows}.
 */
public final class HotSamples {

    /** What a row stands for. */
    public enum By {
        /** The function holding the IP (perf report --sort dso,sym; an address no symbol holds is its own row). */
        SYMBOL("symbol"),
        /** The sampled IP itself. */
        IP("ip");

        private final String cliName;

        By(String cliName) {
            this.cliName = cliName;
        }

        public String cliName() {
            return cliName;
        }

        public static Optional<By> byName(String name) {
            for (By b : values()) {
                if (b.cliName.equals(name.toLowerCase(Locale.ROOT))) {
                    return Optional.of(b);
                }
            }
            return Optional.empty();
        }
    }

    /**
     * One row.
     *
     * @param name    the function ({@link By#SYMBOL}) or the described IP ({@link By#IP})
     * @param ip      the IP ({@link By#IP}) or the row's hottest IP ({@link By#SYMBOL})
     * @param samples samples in the row
     * @param period  the sum of their periods
     * @param share   period over the whole recording's period, 0..1
     * @param exact   samples with PERF_RECORD_MISC_EXACT_IP
     * @param kernel  whether the samples were taken in kernel mode (the first sample's cpumode)
     * @param dso     the DSO as perf report's Shared Object column shows it ({@link CodeLocation#dsoName})
     * @param level   perf's level of the first sample's cpumode: k, ., g, u or H ({@link CodeLocation#level})
     */
    public record Row(String name, long ip, int pid, long samples, long period, double share, long exact,
                      boolean kernel, String dso, char level) {
    }

    /** Per IP: the first pid and cpumode seen, samples, period, exact samples. */
    private static final class Tally {
        final int pid;
        final int cpumode;
        long samples;
        long period;
        long exact;

        Tally(int pid, int cpumode) {
            this.pid = pid;
            this.cpumode = cpumode;
        }

        boolean kernel() {
            return cpumode == PerfRecordMisc.KERNEL;
        }
    }

    private final Map<Long, Tally> byIp = new HashMap<>();
    private long samples;
    private long period;
    private long exact;

    /** Counts one sample at its IP; a sample without a period (sample_type lacks PERIOD) weighs 1. */
    public void add(PerfRecord.Sample s) {
        long p = s.period() > 0 ? s.period() : 1;
        Tally t = byIp.computeIfAbsent(s.ip(), k -> new Tally(s.pid(), s.cpumode()));
        t.samples++;
        t.period += p;
        samples++;
        period += p;
        if ((s.misc() & PerfRecordMisc.EXACT_IP) != 0) {
            t.exact++;
            exact++;
        }
    }

    public long samples() {
        return samples;
    }

    public long period() {
        return period;
    }

    /** Samples whose IP is exact (PERF_RECORD_MISC_EXACT_IP). */
    public long exact() {
        return exact;
    }

    /**
     * Every row, heaviest first (then the lower IP, so equal rows come in a stable order). Per symbol,
     * rows are perf report's {@code --sort dso,sym}: one per (DSO, symbol), and an address no symbol
     * holds is a row of its own, named by perf's address ({@link CodeLocation#name}).
     */
    public List<Row> rows(Symbols symbols, By by) {
        List<Row> rows = new ArrayList<>();
        if (by == By.IP) {
            byIp.forEach((ip, t) -> {
                CodeLocation l = symbols.locate(t.pid, ip, t.cpumode);
                rows.add(new Row(symbols.describe(t.pid, ip), ip, t.pid, t.samples, t.period, share(t.period), t.exact,
                        t.kernel(), l.dsoName(), l.level()));
            });
        } else {
            record Group(CodeLocation where, int pid, boolean kernel, long[] acc, long[] hottest) {
            }
            Map<String, Group> groups = new LinkedHashMap<>();
            byIp.entrySet().stream().sorted(Map.Entry.comparingByKey(Long::compareUnsigned)).forEach(e -> {
                Tally t = e.getValue();
                CodeLocation l = symbols.locate(t.pid, e.getKey(), t.cpumode);
                Group g = groups.computeIfAbsent(l.dsoName() + '\0' + l.name(), n -> new Group(l, t.pid, t.kernel(),
                        new long[3], new long[]{e.getKey(), -1}));
                g.acc[0] += t.samples;
                g.acc[1] += t.period;
                g.acc[2] += t.exact;
                if (t.period > g.hottest[1]) {
                    g.hottest[0] = e.getKey();
                    g.hottest[1] = t.period;
                }
            });
            groups.values().forEach(g -> rows.add(new Row(g.where.name(), g.hottest[0], g.pid, g.acc[0], g.acc[1],
                    share(g.acc[1]), g.acc[2], g.kernel, g.where.dsoName(), g.where.level())));
        }
        rows.sort(Comparator.comparingLong(Row::period).reversed().thenComparing(Row::ip, Long::compareUnsigned));
        return rows;
    }

    /**
     * A frame name for an IP no symbol names (flame graphs): its DSO in brackets where a mapping
     * holds it (one frame per DSO rather than thousands of addresses), else the address as its
     * report row names it.
     */
    static String unnamed(Symbols symbols, int pid, long ip, int cpumode) {
        CodeLocation l = symbols.locate(pid, ip, cpumode);
        if (l.dso() == null) {
            return l.name();
        }
        String d = l.dsoName();
        return d.startsWith("[") ? d : "[" + d + "]";
    }

    private double share(long p) {
        return period == 0 ? 0 : (double) p / period;
    }
}
