package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.arch.perf.PerfType;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool record}: samples of one event over one run, like {@code perf record -e EVENT -c
 * PERIOD}, with perf's precision modifiers: {@code cycles:pp} asks the kernel for precise_ip 2,
 * which Intel serves through PEBS, so each sample's IP is the instruction that caused the event.
 */
@Command(name = "record", sortOptions = false, modelTransformer = StatCommand.StopAtCommand.class,
        description = {"Record samples of one event over one run of CMD, like perf record -e EVENT -c PERIOD: every",
                "PERIOD events a sample carries the IP. :p, :pp, :ppp ask for precise IPs (PEBS on Intel); :u and :k",
                "restrict the mode (no modifier: user mode, as lbr/bts record). Without -e: cycles, and where this",
                "machine cannot sample cycles, cpu-clock (as perf record falls back). The file is perf.data;",
                "'hwtool report' shows where the samples fell. On the simulator (--backend sim --profile P) the",
                "words after -- are a workload spec. The exit code is CMD's (128+N when signal N ended it)."})
final class SampleRecordCommand implements Callable<Integer> {

    /** perf record's default period for counting events (-c) here: not round, as lbr record's. */
    static final long DEFAULT_PERIOD = RecordRequest.Lbr.DEFAULT_PERIOD;
    /** For cpu-clock and task-clock, in ns: 4000 samples a second, perf record's default -F 4000. */
    static final long DEFAULT_CLOCK_PERIOD_NS = 250_000;
    static final String DEFAULT_EVENT = "cycles";
    static final String FALLBACK_EVENT = "cpu-clock";

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT", description = "The event: a generic name (cycles,"
            + " instructions, branches, branch-misses, cpu-clock, ...) or rNNNN, with modifiers :u :k :p :pp :ppp"
            + " (default cycles, else cpu-clock).")
    String event;

    @Option(names = {"-c", "--count"}, paramLabel = "PERIOD", description = "Sample every PERIOD events, PERIOD >= 1 (default "
            + DEFAULT_PERIOD + "; for cpu-clock/task-clock " + DEFAULT_CLOCK_PERIOD_NS + " ns).")
    Long period;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "The recording (default hwtool.data).")
    Path output;

    @Option(names = "--image", paramLabel = "FILE", description = "On the simulator: also write the workload's"
            + " program as an ELF file (as sim image) and name it in the recording, so perf report names the functions.")
    Path image;

    @Parameters(arity = "1..*", paramLabel = "CMD|WORKLOAD", description = "The command and its arguments, or on"
            + " the simulator the workload spec (put -- before it).")
    List<String> words;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (period != null && period < 1) {
            throw new UsageException("-c needs a period of at least 1, got " + period);
        }
        if (event != null) {
            return record(request(event), spec.commandLine().getErr());
        }
        try {
            return record(request(DEFAULT_EVENT), spec.commandLine().getErr());
        } catch (HwException e) {
            // perf record's evsel__fallback: no hardware cycles → the cpu-clock software event.
            // The recorder refuses before CMD runs and leaves no file, so trying again is clean.
            if (e.cause() != Cause.UNSUPPORTED) {
                throw e;
            }
            var err = spec.commandLine().getErr();
            err.println("hwtool: record: " + DEFAULT_EVENT + " cannot be sampled here (" + e.getMessage()
                    + "); sampling " + FALLBACK_EVENT + " instead, as perf record does");
            err.flush();
            return record(request(FALLBACK_EVENT), err);
        }
    }

    private int record(RecordRequest.Sampling request, java.io.PrintWriter err) {
        return RecordRun.run("record", backend, request, words, output, image, err);
    }

    /** The Sampling request of an event spec; PMU/EVENT/ events are refused (they count, they do not sample here). */
    RecordRequest.Sampling request(String text) {
        EventSpec e = EventSpec.parse(text);
        if (e.kind() == EventSpec.Kind.PMU) {
            throw new HwException(Cause.BAD_INPUT, "record: '" + text + "' is a PMU/EVENT/ event, which hwtool counts"
                    + " (stat) but does not sample", "sample a generic event or rNNNN: hwtool record -e cycles:pp -- CMD");
        }
        boolean clock = e.clock();
        long p = period != null ? period : clock ? DEFAULT_CLOCK_PERIOD_NS : DEFAULT_PERIOD;
        if (e.precise() > 0 && e.type() == PerfType.SOFTWARE) {
            // perf_event_open accepts precise_ip only for events a PMU can make precise; software events
            // have no skid to remove (kernel/events/core.c perf_swevent_init does not support it).
            throw new HwException(Cause.BAD_INPUT, "record: '" + text + "': software events have no skid, so :p does"
                    + " not apply", "drop the :p modifiers, or sample a hardware event (cycles:pp)");
        }
        RecordRequest.Privilege priv = e.privilegeOr(RecordRequest.Privilege.USER);
        return new RecordRequest.Sampling(priv, e.type(), e.config(), p, e.precise());
    }
}
