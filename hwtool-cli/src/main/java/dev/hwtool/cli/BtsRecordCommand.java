package dev.hwtool.cli;

import dev.hwtool.api.RecordRequest;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

import java.util.concurrent.Callable;

/** {@code hwtool bts record}: every taken branch of one run, like {@code perf record -e intel_bts//}. */
@Command(name = "record", sortOptions = false, modelTransformer = StatCommand.StopAtCommand.class,
        description = {"Record every taken branch of one run of CMD through the branch trace store: the intel_bts",
                "PMU where it exists, else the branches event at period 1 (the kernel's BTS). The file is perf.data",
                "format; an existing FILE is renamed FILE.old. On the simulator (--backend sim --profile P) the words",
                "after -- are a workload spec (e.g. loop iterations=1000 body=8).",
                "The exit code is CMD's (128+N when signal N ended it); 127/126 when CMD is not found/not executable."})
final class BtsRecordCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    RecordOptions record;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        RecordRequest.Bts request = new RecordRequest.Bts(record.privilege());
        return RecordRun.run("bts record", backend, request, record.words, record.output, record.image, spec.commandLine().getErr());
    }
}
