package dev.hwtool.cli;

import picocli.CommandLine.Command;
import picocli.CommandLine.HelpCommand;
import picocli.CommandLine.ScopeType;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/** The top-level {@code hwtool} command: it only groups the subcommands. */
@Command(name = "hwtool",
        mixinStandardHelpOptions = true,
        scope = ScopeType.INHERIT,
        versionProvider = Version.class,
        description = "x86 debug and performance-monitoring hardware on Linux: CPUID, MSRs, LBR, BTS.",
        footer = {"", "Backends: the real machine (--backend hw), or a simulated CPU (--backend sim --profile NAME|FILE).",
                "Nothing simulated is ever shown as real; see README.md for exit codes and JSON fields."})
public final class HwtoolCommand {

    /**
     * The subcommands, in the order help lists them, by the name their {@code @Command} gives
     * (CliTest checks the two agree). Not in the annotation: picocli reflects over every class it
     * is given, and building the whole tree cost most of a one-shot command's start-up, so
     * {@link Cli} builds only the subcommand a command line names (see {@link #needed}).
     */
    static final Map<String, Class<?>> SUBCOMMANDS = subcommands();

    private static Map<String, Class<?>> subcommands() {
        Map<String, Class<?>> m = new LinkedHashMap<>();
        m.put("caps", CapsCommand.class);
        m.put("cpuid", CpuidCommand.class);
        m.put("rdmsr", RdmsrCommand.class);
        m.put("wrmsr", WrmsrCommand.class);
        m.put("msr", MsrCommand.class);
        m.put("doctor", DoctorCommand.class);
        m.put("stat", StatCommand.class);
        m.put("lbr", LbrCommand.class);
        m.put("bts", BtsCommand.class);
        m.put("record", SampleRecordCommand.class);
        m.put("report", SampleReportCommand.class);
        m.put("profiles", ProfilesCommand.class);
        m.put("sim", SimCommand.class);
        m.put("exporter", ExporterCommand.class);
        m.put("batch", BatchCommand.class);
        m.put("help", HelpCommand.class);
        m.put("generate-completion", GenerateCompletionCommand.class);
        m.put("aot-train", AotTrainCommand.class);
        return Collections.unmodifiableMap(m);
    }

    /**
     * The subcommands a command line needs: only the one it starts with, when that one does not
     * look at its siblings; none for a lone --version; else all (--help lists them, 'help NAME' and
     * 'generate-completion' walk them, an unknown name is matched against them).
     */
    /** The groups whose own subcommands are registered by {@link Cli}, not by their annotation. */
    static final Map<String, Map<String, Class<?>>> GROUPS = Map.of("msr", MsrCommand.SUBCOMMANDS);

    /**
     * Of a group's subcommands, those a command line needs: only the one it names after the
     * group, else all (the group's help and errors list them).
     */
    static Map<String, Class<?>> neededIn(String group, String[] args) {
        Map<String, Class<?>> all = GROUPS.get(group);
        if (args.length > 1 && args[0].equals(group)) {
            Class<?> c = all.get(args[1]);
            if (c != null) {
                return Map.of(args[1], c);
            }
        }
        return all;
    }

    static Map<String, Class<?>> needed(String[] args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            return Map.of();
        }
        if (args.length > 0 && !args[0].equals("help") && !args[0].equals("generate-completion")) {
            Class<?> c = SUBCOMMANDS.get(args[0]);
            if (c != null) {
                return Map.of(args[0], c);
            }
        }
        return SUBCOMMANDS;
    }
}
