package dev.hwtool.cli;

import dev.hwtool.api.Platform;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool msr list}: the register catalog, as it applies to one CPU. By default only the
 * registers and fields that exist on that CPU (this machine's, or the simulated profile's);
 * with {@code --all} every catalogued register, each with whether it exists here and the
 * condition that decides it.
 */
@Command(name = "list", sortOptions = false,
        description = {"The MSR catalog: registers (name, address, access, whether it exists on this CPU, description)"
                + " and their fields (bits, name, access, condition).",
                "Default: what exists on this machine's CPU (or the simulated profile's); --all: the whole catalog."})
final class MsrListCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--all", description = "Every catalogued register, with the conditions under which it and its fields exist.")
    boolean all;

    @Option(names = "--cpu", paramLabel = "N", converter = Numbers.CpuNumber.class,
            description = "The logical CPU whose CPUID decides what exists, " + Numbers.CpuNumber.RANGE + " (default: the first).")
    Integer cpu;

    @Option(names = "--json", description = "JSON instead of text (fields documented in README.md).")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        MsrTarget target;
        try (Platform platform = backend.open()) {
            target = MsrTarget.of(platform, cpu);
        }
        List<MsrDef> defs = all ? MsrCatalog.all() : MsrCatalog.forCpu(target.context());
        MsrListing listing = new MsrListing(target, all, defs, MsrCatalog.all().size());
        PrintWriter out = spec.commandLine().getOut();
        if (json) {
            out.println(Json.write(listing.json()));
        } else {
            out.print(listing.text(spec.commandLine().getColorScheme().ansi()));
        }
        out.flush();
        return ExitCodes.OK;
    }
}
