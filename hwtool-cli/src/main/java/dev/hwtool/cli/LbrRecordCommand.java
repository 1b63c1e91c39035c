package dev.hwtool.cli;

import dev.hwtool.api.RecordRequest;
import dev.hwtool.api.BranchFilter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code hwtool lbr record}: branch-stack samples of one run, like {@code perf record -b -j FILTER -c PERIOD}. */
@Command(name = "record", sortOptions = false, modelTransformer = StatCommand.StopAtCommand.class,
        description = {"Record branch-stack (LBR) samples over one run of CMD, like perf record -b: every PERIOD events",
                "a sample carries the last branches taken. The file is perf.data format (perf report -i reads it);",
                "an existing FILE is renamed FILE.old. On the simulator (--backend sim --profile P) the words after",
                "-- are a workload spec (e.g. calltree depth=4 calls=5000; see 'hwtool sim run --help').",
                "The exit code is CMD's (128+N when signal N ended it); 127/126 when CMD is not found/not executable."})
final class LbrRecordCommand implements Callable<Integer> {

    /** The library's default, which caps' LBR probe opens too (same attr, same verdict). */
    static final long DEFAULT_PERIOD = RecordRequest.Lbr.DEFAULT_PERIOD;

    @Spec
    CommandSpec spec;

    @Mixin
    RecordOptions record;

    @Option(names = "--filter", paramLabel = "any|call|return|cond|ind-call|call-stack", defaultValue = "any",
            description = "Which branches the LBR keeps (default any); call-stack keeps the open calls, for --folded.")
    String filter;

    @Option(names = {"-c", "--count"}, paramLabel = "PERIOD", defaultValue = "" + DEFAULT_PERIOD,
            description = "Sample every PERIOD events, PERIOD >= 1 (default ${DEFAULT-VALUE}).")
    long period;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        BranchFilter f = BranchFilter.byName(filter).orElseThrow(() -> new UsageException("unknown --filter '" + filter
                + "' (" + BranchFilter.names() + ")"));
        if (period < 1) {
            throw new UsageException("-c needs a period of at least 1, got " + period);
        }
        RecordRequest.Lbr request = new RecordRequest.Lbr(record.privilege(), f, period);
        return RecordRun.run("lbr record", backend, request, record.words, record.output, record.image, spec.commandLine().getErr());
    }
}
