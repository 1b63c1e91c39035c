package dev.hwtool.cli;

import dev.hwtool.api.RecordRequest;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.nio.file.Path;
import java.util.List;

/** What {@code lbr record} and {@code bts record} share: privilege, output file and the command or workload. */
final class RecordOptions {

    @Option(names = "--user", description = "Record user-mode branches (the default).")
    boolean user;

    @Option(names = "--kernel", description = "Record kernel-mode branches (with --user: both).")
    boolean kernel;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "The recording (default hwtool.data).")
    Path output;

    @Option(names = "--image", paramLabel = "FILE", description = "On the simulator: also write the workload's"
            + " program as an ELF file (as sim image) and name it in the recording, so perf report names the functions.")
    Path image;

    @Parameters(arity = "1..*", paramLabel = "CMD|WORKLOAD", description = "The command and its arguments, or on"
            + " the simulator the workload spec (put -- before it).")
    List<String> words;

    /** --user, --kernel, both, or neither (user: what perf_event_paranoid 2 allows everyone). */
    RecordRequest.Privilege privilege() {
        if (kernel && user) {
            return RecordRequest.Privilege.ALL;
        }
        return kernel ? RecordRequest.Privilege.KERNEL : RecordRequest.Privilege.USER;
    }
}
