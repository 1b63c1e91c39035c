package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool lbr}: groups record and report. */
@Command(name = "lbr", description = "Sample the last branch records (LBR): record a run, report its hottest branches.",
        subcommands = {LbrRecordCommand.class, LbrReportCommand.class})
final class LbrCommand {
}
