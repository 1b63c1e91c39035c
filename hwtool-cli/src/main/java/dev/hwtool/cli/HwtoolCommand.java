package dev.hwtool.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.ScopeType;

/** The top-level {@code hwtool} command: it only groups the subcommands. */
@Command(name = "hwtool",
        mixinStandardHelpOptions = true,
        scope = ScopeType.INHERIT,
        versionProvider = Version.class,
        description = "x86 debug and performance-monitoring hardware on Linux: CPUID, MSRs, LBR, BTS.",
        footer = {"", "Backends: the real machine (--backend hw), or a simulated CPU (--backend sim --profile NAME|FILE).",
                "Nothing simulated is ever shown as real; see README.md for exit codes and JSON fields."},
        subcommands = {
                CapsCommand.class,
                CpuidCommand.class,
                RdmsrCommand.class,
                WrmsrCommand.class,
                MsrCommand.class,
                DoctorCommand.class,
                StatCommand.class,
                LbrCommand.class,
                BtsCommand.class,
                SampleRecordCommand.class,
                SampleReportCommand.class,
                ProfilesCommand.class,
                SimCommand.class,
                ExporterCommand.class,
                HelpCommand.class,
                AutoComplete.GenerateCompletion.class,
                AotTrainCommand.class,
        })
public final class HwtoolCommand {
}
