package dev.hwtool.cli;

import picocli.CommandLine.Command;

/** {@code hwtool msr}: groups the MSR subcommands beyond rdmsr/wrmsr. */
@Command(name = "msr",
        description = "Model-specific registers: the catalog (list), decoding values (decode), sampling over time (watch), "
                + "saving and restoring registers (save, restore; restore --last undoes the last write).")
final class MsrCommand {

    /**
     * The subcommands, in help's order, by their {@code @Command} names: registered by {@link Cli}
     * (only the one a command line names, see {@link HwtoolCommand#needed}), not in the annotation,
     * for the same reason as HwtoolCommand's.
     */
    static final java.util.Map<String, Class<?>> SUBCOMMANDS = subcommands();

    private static java.util.Map<String, Class<?>> subcommands() {
        java.util.Map<String, Class<?>> m = new java.util.LinkedHashMap<>();
        m.put("list", MsrListCommand.class);
        m.put("decode", MsrDecodeCommand.class);
        m.put("watch", MsrWatchCommand.class);
        m.put("save", MsrSaveCommand.class);
        m.put("restore", MsrRestoreCommand.class);
        return java.util.Collections.unmodifiableMap(m);
    }
}
