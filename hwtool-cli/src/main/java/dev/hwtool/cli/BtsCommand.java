package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool bts}: groups record and report. */
@Command(name = "bts", description = "Trace every taken branch (branch trace store): record a run, report its trace and hot paths.",
        subcommands = {BtsRecordCommand.class, BtsReportCommand.class})
final class BtsCommand {
}
