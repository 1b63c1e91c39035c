package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool sim}: scenario scripts on the simulated machine. */
@Command(name = "sim",
        description = "Scenario scripts on a simulated CPU: run one (run), or list the shipped ones (list). "
                + "Everything they show is SIMULATED.",
        subcommands = {
                SimRunCommand.class,
                SimListCommand.class,
        })
final class SimCommand {
}
