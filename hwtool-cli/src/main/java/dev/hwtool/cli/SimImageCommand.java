package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.io.OutputFile;
import dev.hwtool.io.TerminalText;
import dev.hwtool.sim.record.SimulatedTargets;
import dev.hwtool.sim.workload.ProgramImage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool sim image -o FILE -- WORKLOAD}: the program a simulated workload is, as an ELF
 * executable, for objdump, gdb, perf or any ELF tool. hwtool's own reports need no such file (they
 * rebuild the image from the spec a recording keeps), so it is written only where the user names it.
 */
@Command(name = "image", sortOptions = false,
        description = "Write the program a simulated workload runs as an ELF64 x86-64 executable: its code at the"
                + " addresses the simulator retires branches from (call, ret, jcc, jmp as on hardware), with a symbol"
                + " per function (main, fL_K). For objdump -d, gdb or perf; hwtool's reports need no file.")
final class SimImageCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", required = true,
            description = "Where to write the ELF file (replaced atomically; - is not accepted: it is binary).")
    Path output;

    @Parameters(arity = "1..*", paramLabel = "WORKLOAD",
            description = "The workload, as for record --backend sim: loop ..., calltree ..., trace FILE, builtin:NAME or"
                    + " FILE.hwsim.")
    List<String> words;

    @Override
    public Integer call() {
        RecordTarget target = new RecordTarget.Workload(RecordRun.workloadSpec(words), Path.of("").toAbsolutePath());
        ProgramImage image;
        byte[] elf;
        // The output is checked first (README, Output files): a file that cannot be written fails before any work.
        try (OutputFile out = OutputFile.open(output)) {
            image = SimulatedTargets.image(target).orElseThrow(() -> new HwException(Cause.BAD_INPUT,
                    "sim image: '" + target.describe() + "' has no program image: a trace on standard input is read"
                            + " once, when it runs"));
            elf = image.elf();
            out.write(ByteBuffer.wrap(elf));
            out.commit();
        }
        PrintWriter err = spec.commandLine().getErr();
        err.println("hwtool: sim image: " + image.functions().size() + " functions, " + image.text().length
                + " bytes of code at 0x" + Long.toHexString(image.start()) + "-0x" + Long.toHexString(image.end())
                + ", " + elf.length + " bytes written to " + TerminalText.quote(output.toString()));
        err.flush();
        return ExitCodes.OK;
    }
}
