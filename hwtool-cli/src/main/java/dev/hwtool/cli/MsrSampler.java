package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.io.TerminalText;

import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The sampling loop of {@code hwtool msr watch} and its per-CPU state. Samples are taken on a
 * fixed schedule (start + k × interval), so a slow read does not shift the later ones; every
 * row is flushed when written.
 *
 * <p>Errors: a read that fails on every CPU at the first sample ends the command with that
 * failure's one-line message and its cause's exit code, before any output. A CPU that fails
 * later (or at the first sample while others succeed) is reported once on stderr and dropped;
 * the other CPUs go on, and the exit code is then that first failure's cause. When every CPU has
 * been dropped the watch ends.
 */
final class MsrSampler {
    private final MsrAccess msr;
    private final List<Integer> active;
    private final List<MsrArgs.Register> regs;
    private final List<String> labels;
    private final WatchOutput format;
    private final boolean simulated;
    private final Map<Integer, long[]> previous = new LinkedHashMap<>();
    private final boolean delta;
    private final Duration interval;
    private final Long count;
    private final PrintWriter out;
    private final PrintWriter err;
    private HwException firstFailure;
    private boolean headerWritten;
    private boolean sampledOnce;

    /** @param count rows per CPU, or null to run until SIGINT */
    MsrSampler(MsrAccess msr, List<Integer> cpus, List<MsrArgs.Register> regs, WatchOutput format, boolean delta,
               Duration interval, Long count, boolean simulated, PrintWriter out, PrintWriter err) {
        this.msr = msr;
        this.delta = delta;
        this.interval = interval;
        this.count = count;
        this.out = out;
        this.err = err;
        this.active = new ArrayList<>(cpus);
        this.regs = regs;
        this.labels = regs.stream().map(MsrArgs.Register::label).toList();
        this.format = format;
        this.simulated = simulated;
    }

    int run() {
        int status;
        try (StopSignals stop = StopSignals.install(Thread.currentThread(), s -> { })) {
            long start = System.nanoTime();
            long step = interval.toNanos();
            long rows = 0;
            long tick = 0;
            if (delta) {
                sample(start, true); // the baseline: not printed
                tick = 1;
            }
            while (!active.isEmpty() && (count == null || rows < count) && !stop.requested()) {
                stop.sleepUntil(start + tick * step);
                if (stop.requested()) {
                    break;
                }
                sample(start, false);
                rows++;
                tick++;
            }
            // A signal ends the watch after a complete row, with 128 + N as for any signal.
            status = stop.status(firstFailure == null ? ExitCodes.OK : firstFailure.cause().exitCode());
        }
        out.flush();
        return status;
    }

    /** Reads every register on every active CPU; prints the rows unless this is the baseline. */
    private void sample(long start, boolean baseline) {
        Instant now = Instant.now();
        long elapsed = System.nanoTime() - start;
        List<WatchOutput.Row> rows = new ArrayList<>();
        Map<Integer, HwException> failed = new LinkedHashMap<>();
        for (int cpu : active) {
            long[] values = new long[regs.size()];
            try {
                for (int i = 0; i < regs.size(); i++) {
                    values[i] = msr.read(cpu, regs.get(i).index());
                }
            } catch (HwException e) {
                failed.put(cpu, e);
                continue;
            }
            long[] shown = values;
            if (delta) {
                long[] before = previous.put(cpu, values);
                if (before != null) {
                    shown = new long[values.length];
                    for (int i = 0; i < values.length; i++) {
                        shown[i] = values[i] - before[i]; // modulo 2^64: a wrapped counter stays right
                    }
                }
            }
            if (!baseline) {
                rows.add(new WatchOutput.Row(now, elapsed, cpu, shown));
            }
        }
        if (!failed.isEmpty()) {
            HwException first = failed.values().iterator().next();
            if (!sampledOnce && failed.size() == active.size()) {
                throw first; // nothing could be read at all: an ordinary one-line error
            }
            if (firstFailure == null) {
                firstFailure = first;
            }
            failed.forEach((cpu, e) -> {
                err.println("hwtool: CPU " + cpu + " dropped from the watch: " + TerminalText.quote(e.getMessage()));
                e.remedy().ifPresent(r -> err.println("hwtool: fix: " + r));
            });
            err.flush();
            active.removeAll(failed.keySet());
        }
        sampledOnce = true;
        if (!rows.isEmpty()) {
            if (!headerWritten) {
                out.print(format.header(labels, delta));
                headerWritten = true;
            }
            for (WatchOutput.Row r : rows) {
                out.print(format.row(labels, delta, simulated, r));
            }
            out.flush();
        }
    }
}
