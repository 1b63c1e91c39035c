package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.io.TerminalText;

import java.io.PrintWriter;
import java.util.List;

/** What rdmsr and wrmsr share: their routing from Main, -p parsing, -V, error lines, backend options. */
final class CompatCommands {

    private CompatCommands() {
    }

    /** Subcommands that parse their own arguments, getopt style, exactly as msr-tools. */
    static boolean handles(String name) {
        return name.equals(RdmsrCommand.PROGRAM) || name.equals(WrmsrCommand.PROGRAM);
    }

    static int run(String name, List<String> args, PrintWriter out, PrintWriter err) {
        return name.equals(RdmsrCommand.PROGRAM) ? RdmsrCommand.run(args, out, err) : WrmsrCommand.run(args, out, err);
    }

    static String version(String program) {
        return program + ": version msr-tools-1.3 compatible (hwtool " + Version.current() + ")";
    }

    /** The highest CPU number rdmsr and wrmsr accept for -p. */
    static final int MAX_CPU = 5119;

    /** rdmsr's and wrmsr's usage error for a -p argument {@link #cpuNumber} refused. */
    static String invalidCpu(String arg) {
        return "invalid CPU number '" + arg + "' (0 to " + MAX_CPU + ")";
    }

    /** msr-tools' -p: strtoul(arg, &end, 0) with nothing left over and at most {@code max}; else null. */
    static Integer cpuNumber(String arg, int max) {
        CNumbers.Parsed p = CNumbers.strtoul(arg);
        // strtoul of "" parses nothing and leaves end at the (empty) end: msr-tools reads it as CPU 0.
        boolean rest = p.end() == 0 ? !arg.isEmpty() : p.end() != arg.length();
        if (rest || Long.compareUnsigned(p.value(), max) > 0) {
            return null;
        }
        return (int) p.value();
    }

    static BackendOptions backendOptions() {
        BackendOptions b = new BackendOptions();
        b.binding = "ffm";
        return b;
    }

    static void backendOption(BackendOptions b, Getopt.Opt o) {
        switch (o.key()) {
            case "backend" -> b.backend = o.arg();
            case "profile" -> b.profile = o.arg();
            case "binding" -> b.binding = o.arg();
            default -> throw new IllegalStateException("option " + o.key() + " has no handler");
        }
    }

    /** msr-tools' line ("rdmsr: No CPU 3"), then hwtool's remedy when it knows one. */
    static void report(PrintWriter err, String program, MsrToolsErrors.Failure f, HwException e) {
        err.println(program + ": " + TerminalText.quote(f.message()));
        e.remedy().ifPresent(r -> err.println("hwtool: fix: " + r));
        err.flush();
    }
}
