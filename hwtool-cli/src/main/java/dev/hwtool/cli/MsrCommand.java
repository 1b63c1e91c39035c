package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool msr}: groups the register-catalog and sampling subcommands. */
@Command(name = "msr",
        description = "Model-specific registers: the catalog (list), decoding values (decode), sampling over time (watch).",
        subcommands = {
                MsrListCommand.class,
                MsrDecodeCommand.class,
                MsrWatchCommand.class,
        })
final class MsrCommand {
}
