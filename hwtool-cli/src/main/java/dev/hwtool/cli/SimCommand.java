package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool sim}: scenario scripts on the simulated machine. */
@Command(name = "sim",
        description = "Scenario scripts on a simulated CPU: run one (run), or list the shipped ones (list); "
                + "the simulated CPUs as a /dev/cpu tree for any program (mount, exec); "
                + "a workload's program as an ELF file (image). "
                + "Everything they show is SIMULATED.",
        subcommands = {
                SimRunCommand.class,
                SimListCommand.class,
                SimMountCommand.class,
                SimExecCommand.class,
                SimImageCommand.class,
        })
final class SimCommand {
}
