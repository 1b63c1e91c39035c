package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool msr ...}: MSR tools beyond rdmsr/wrmsr. Only groups its subcommands. */
@Command(name = "msr", description = "MSR tools: save and restore registers, undo the last write.",
        subcommands = {MsrSaveCommand.class, MsrRestoreCommand.class})
final class MsrCommand {
}
