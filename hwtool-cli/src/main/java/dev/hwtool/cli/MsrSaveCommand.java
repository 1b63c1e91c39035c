package dev.hwtool.cli;

import dev.hwtool.msr.MsrRegister;
import dev.hwtool.msr.MsrSaveFile;
import dev.hwtool.io.OutputFile;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/** {@code hwtool msr save REG... [-p CPU|-a] -o FILE}: the registers' values, for {@code msr restore FILE}. */
@Command(name = "save", sortOptions = false,
        description = {"Save MSR values to a JSON file (written atomically) for 'hwtool msr restore FILE'.",
                "REG is a catalog name (IA32_DEBUGCTL) or a number (0x hex, 0 octal, decimal)."})
final class MsrSaveCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "REG", description = "Registers to save.")
    List<String> registers;

    @Option(names = {"-p", "--cpu"}, paramLabel = "CPU", converter = Numbers.CpuNumber.class,
            description = "This logical CPU, " + Numbers.CpuNumber.RANGE + " (default 0).")
    Integer cpu;

    @Option(names = {"-a", "--all"}, description = "Every online CPU.")
    boolean all;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true, description = "The file to write.")
    Path output;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (all && cpu != null) {
            throw new UsageException("-p/--cpu and -a/--all exclude each other");
        }
        List<RegisterArg> regs = registers.stream().map(RegisterArg::parse).toList();
        // The output is checked and prepared before any register is read.
        try (OutputFile out = OutputFile.open(output); MsrSession s = new MsrSession(backend)) {
            s.noteIfSimulated(spec.commandLine().getErr());
            List<Integer> cpus = all ? s.msr.cpus() : List.of(cpu == null ? 0 : cpu);
            MsrSaveFile file = MsrSaveFile.capture(s.msr, cpus,
                    regs.stream().map(r -> new MsrRegister(r.address(), r.def())).toList(), s.backendLabel, s.simulated());
            file.write(out);
            List<MsrSaveFile.Register> saved = file.registers();
            // On stderr, as the recorders' summaries: stdout may be the file itself (-o /dev/stdout).
            PrintWriter err = spec.commandLine().getErr();
            err.println("hwtool: msr save: saved " + saved.size() + " register value" + (saved.size() == 1 ? "" : "s")
                    + " (" + regs.size() + " register" + (regs.size() == 1 ? "" : "s") + " x " + cpus.size() + " CPU"
                    + (cpus.size() == 1 ? "" : "s") + ") to " + dev.hwtool.io.TerminalText.quote(output.toString()));
            err.flush();
            return ExitCodes.OK;
        }
    }
}
