package dev.hwtool.cli;

import picocli.CommandLine.Command;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * Hidden: the training run the build makes its AOT cache from (hwtool/pom.xml). It runs the
 * one-shot commands people start most, in-process, so that their classes are loaded, linked
 * and profiled into the cache. Read-only: it never writes to hardware (no wrmsr, no restore).
 */
@Command(name = "aot-train", hidden = true, description = "Build-time AOT cache training run (read-only).")
final class AotTrainCommand implements Callable<Integer> {

    private static final List<String[]> RUNS = List.of(
            new String[]{"caps"},
            new String[]{"caps", "--json"},
            new String[]{"cpuid"},
            new String[]{"cpuid", "-l", "0"},
            new String[]{"cpuid", "--json", "-1"},
            new String[]{"caps", "--backend", "sim", "--profile", "alderlake"},
            new String[]{"caps", "--json", "--backend", "sim", "--profile", "skylake"},
            new String[]{"doctor"},
            new String[]{"rdmsr", "0x10"},
            new String[]{"rdmsr", "-a", "--decode", "IA32_APIC_BASE", "--backend", "sim", "--profile", "skylake"},
            new String[]{"rdmsr", "--backend", "sim", "--profile", "skylake", "0x1d9"},
            new String[]{"msr", "list"},
            new String[]{"msr", "decode", "IA32_DEBUGCTL", "0x1"},
            new String[]{"msr", "decode", "--json", "IA32_MISC_ENABLE", "0x850089"},
            new String[]{"profiles"},
            new String[]{"profiles", "--json"},
            new String[]{"sim", "list"},
            new String[]{"--version"},
            new String[]{"--help"});

    @Override
    public Integer call() {
        for (String[] args : RUNS) {
            // Output and errors are discarded: a build host without CPUID access still trains
            // the error paths, which are part of start-up too.
            PrintWriter sink = new PrintWriter(new StringWriter());
            Main.run("hwtool", args, sink, sink);
        }
        return ExitCodes.OK;
    }
}
