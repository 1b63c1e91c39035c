package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool msr}: groups the MSR subcommands beyond rdmsr/wrmsr. */
@Command(name = "msr",
        description = "Model-specific registers: the catalog (list), decoding values (decode), sampling over time (watch), "
                + "saving and restoring registers (save, restore; restore --last undoes the last write).",
        subcommands = {
                MsrListCommand.class,
                MsrDecodeCommand.class,
                MsrWatchCommand.class,
                MsrSaveCommand.class,
                MsrRestoreCommand.class,
        })
final class MsrCommand {
}
