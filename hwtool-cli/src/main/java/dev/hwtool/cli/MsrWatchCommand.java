package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.api.Platform;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.CpuList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool msr watch}: samples registers over time, one row per CPU per sample, like
 * {@code turbostat --add} or {@code pcm-msr -s}. This class checks the arguments and resolves
 * registers and CPUs; {@link MsrSampler} runs the loop.
 */
@Command(name = "watch", sortOptions = false,
        description = {"Sample MSRs over time: one row per CPU per sample (time, CPU, a column per register).",
                "--delta shows the change since the previous sample (for counters: TSC, APERF, MPERF, ...).",
                "Runs until --count rows per CPU or a signal: Ctrl-C (exit 130), SIGTERM (143), SIGHUP (129) end it after a "
                        + "complete row; rows are flushed as they are written.",
                "A CPU whose read fails is reported once on stderr and dropped; the others continue.",
                "The exit code is then that failure's (e.g. 10 for #GP).",
                "A failure on every CPU at the first sample is a one-line error with its exit code."})
final class MsrWatchCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "REG", description = "Registers: catalog names (e.g. IA32_TIME_STAMP_COUNTER) or numbers (0x10).")
    List<String> registers;

    @Option(names = {"-p", "--cpu"}, paramLabel = "CPUS", description = "CPUs to sample, as a list of CPU numbers 0 to 65535: 0 or 0,2-3 (default: the first CPU).")
    String cpuList;

    @Option(names = {"-a", "--all"}, description = "Sample every online CPU.")
    boolean allCpus;

    @Option(names = {"-i", "--interval"}, paramLabel = "D", defaultValue = "1s", converter = IntervalArg.class,
            description = "Time between samples, 1ms to 24h: 1s, 500ms, 0.25s, 2m, or seconds (default: 1s).")
    Duration interval;

    @Option(names = {"-n", "--count"}, paramLabel = "N", description = "Stop after N rows per CPU, N >= 1 (default: run until interrupted).")
    Long count;

    @Option(names = "--delta", description = "Print each register's change since the previous sample (unsigned, modulo 2^64)"
            + " instead of its value; the first row comes one interval after the start.")
    boolean delta;

    @Option(names = "--csv", description = "CSV with a header line: timestamp,elapsed_s,cpu,REG...")
    boolean csv;

    @Option(names = "--json", description = "JSON lines: one object per row (fields documented in README.md).")
    boolean json;

    @Mixin
    BackendOptions backend;

    @Override
    public Integer call() {
        if (csv && json) {
            throw new UsageException("--csv and --json exclude each other; give one");
        }
        if (cpuList != null && allCpus) {
            throw new UsageException("-p/--cpu and -a/--all exclude each other; give one");
        }
        if (count != null && count < 1) {
            throw new UsageException("--count must be at least 1 (omit it to run until interrupted)");
        }
        List<Integer> requested = null;
        if (cpuList != null) {
            try {
                requested = CpuList.parse(cpuList);
            } catch (IllegalArgumentException e) {
                throw new UsageException("-p '" + cpuList + "' is not a CPU list (e.g. 0 or 0,2-3)");
            }
            if (requested.isEmpty()) {
                throw new UsageException("-p names no CPU");
            }
        }
        WatchOutput format = csv ? WatchOutput.CSV : json ? WatchOutput.JSON : WatchOutput.TEXT;
        try (Platform platform = backend.open()) {
            MsrAccess msr = platform.msr();
            List<Integer> online = msr.cpus();
            // by default the CPU the other commands read: the first this process may run on
            List<Integer> cpus = allCpus ? online : requested != null ? requested : List.of(platform.cpuid().defaultCpu());
            for (int c : cpus) {
                if (!online.contains(c)) {
                    throw new HwException(Cause.NO_SUCH_CPU, "CPU " + c + " is offline or does not exist (online: "
                            + CapsText.ranges(online) + ")");
                }
            }
            CpuContext ctx = CpuidReading.of(platform.cpuid()).onCpu(cpus.getFirst(), CpuContext::of);
            List<MsrArgs.Register> regs = new ArrayList<>();
            for (String r : registers) {
                regs.add(MsrArgs.register(r, ctx));
            }
            boolean simulated = platform.kind() == Platform.Kind.SIMULATED;
            if (simulated) {
                PrintWriter err = spec.commandLine().getErr();
                err.println("hwtool: SIMULATED CPU (" + platform.description() + "): these are not this machine's registers");
                err.flush();
            }
            return new MsrSampler(msr, cpus, regs, format, delta, interval, count, simulated,
                    spec.commandLine().getOut(), spec.commandLine().getErr()).run();
        }
    }
}
