package dev.hwtool.cli;

import dev.hwtool.api.EventSpec;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.io.OutputFile;
import dev.hwtool.io.TerminalText;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.sim.SimulatedPlatform;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool stat}: counts events over one run of a command, like {@code perf stat}. This
 * class checks the arguments and picks the {@link EventCounter}; the counter runs the command;
 * {@link StatOutput} formats the result.
 */
@Command(name = "stat", sortOptions = false, modelTransformer = StatCommand.StopAtCommand.class,
        description = {"Count events over one run of CMD, like perf stat: from CMD's exec to its end, its children included.",
                "Events: generic names (task-clock, cpu-clock, page-faults|faults, minor-faults, major-faults,",
                "context-switches|cs, cpu-migrations|migrations, alignment-faults, emulation-faults, cycles,",
                "instructions, branches, branch-misses, cache-references, cache-misses, ref-cycles, bus-cycles, ...),",
                "rNNNN (a raw PMU config in hex), PMU/EVENT/ (an event of /sys/bus/event_source/devices/PMU/events,",
                "e.g. msr/tsc/); append :u to count user mode only, :k kernel mode only.",
                "An event this machine cannot count is shown as <not supported> with the reason; the command fails",
                "only when no event can be counted. The report goes to stderr (or -o FILE), CMD's output is its own.",
                "The exit code is CMD's (128+N when signal N ended it); 127/126 when CMD is not found/not executable."})
final class StatCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = {"-e", "--event"}, paramLabel = "EVENT[,EVENT...]",
            description = "Events to count (repeatable). Default: task-clock, context-switches, cpu-migrations,"
                    + " page-faults, cycles, instructions, branches, branch-misses (perf stat's).")
    List<String> eventLists;

    @Option(names = "--json", description = "One JSON object (fields documented in README.md).")
    boolean json;

    @Option(names = {"-x", "--field-separator"}, paramLabel = "SEP",
            description = "perf stat -x lines: value, unit, event, time running (ns), percent running, metric value, metric unit.")
    String separator;

    @Option(names = {"-o", "--output"}, paramLabel = "FILE", description = "Write the report to FILE instead of stderr.")
    Path output;

    @Parameters(arity = "1..*", paramLabel = "CMD|WORKLOAD", description = "The command and its arguments (put -- before it"
            + " when its first argument starts with '-' and could be taken for a hwtool option); on the simulator"
            + " (--backend sim --profile P) a workload spec, e.g. loop iterations=100000.")
    List<String> command;

    @Mixin
    BackendOptions backend;

    /**
     * Options after CMD belong to CMD ({@code hwtool stat ls -l}), as perf stat and env(1)
     * read them: picocli stops option parsing at the first positional parameter.
     */
    static final class StopAtCommand implements picocli.CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec commandSpec) {
            commandSpec.parser().stopAtPositional(true);
            return commandSpec;
        }
    }

    @Override
    public Integer call() {
        if (json && separator != null) {
            throw new UsageException("--json and -x exclude each other; give one");
        }
        if (separator != null && separator.isEmpty()) {
            throw new UsageException("-x needs a non-empty separator");
        }
        List<EventSpec> events = EventSpec.parseAll(eventLists == null ? EventSpec.DEFAULT : eventLists);
        PrintWriter err = spec.commandLine().getErr();
        // On the simulator the words are a workload spec, which the simulator parses.
        if (!backend.simulated()) {
            try {
                CommandPath.resolve(command.getFirst(), System.getenv("PATH"));
            } catch (CommandPath.NotRunnable e) {
                err.println("hwtool: stat: " + TerminalText.quote(e.getMessage()));
                err.flush();
                return e.status;
            }
        }
        // -o is checked and prepared before CMD runs: a report that cannot be written fails first.
        try (OutputFile out = output == null ? null : OutputFile.open(output)) {
            StatResult result;
            try (Platform platform = backend.open()) {
                result = counter(platform).count(events, command);
            }
            String report = json ? StatOutput.json(result)
                    : separator != null ? StatOutput.csv(result, separator) : StatOutput.text(result);
            if (out != null) {
                out.write(ByteBuffer.wrap(report.getBytes(StandardCharsets.UTF_8)));
                out.commit();
            } else {
                err.print(report);
                err.flush();
            }
            return result.exitCode();
        }
    }

    /**
     * The counting source of {@code platform}: perf_event_open on the hardware backend, the
     * simulated CPU's counters on the simulator.
     */
    static EventCounter counter(Platform platform) {
        if (platform instanceof LinuxPlatform linux) {
            return new PerfEventCounter(linux);
        }
        if (platform instanceof SimulatedPlatform sim) {
            return new SimEventCounter(sim);
        }
        throw new HwException(Cause.UNSUPPORTED, platform.description() + " has no event counter",
                "use --backend hw, or --backend sim --profile NAME");
    }
}
