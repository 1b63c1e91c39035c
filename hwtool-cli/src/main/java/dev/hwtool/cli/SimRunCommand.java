package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.io.BoundedText;
import dev.hwtool.io.TerminalText;
import dev.hwtool.sim.scenario.ProfileLoader;
import dev.hwtool.sim.scenario.ScenarioException;
import dev.hwtool.sim.scenario.ScenarioResult;
import dev.hwtool.sim.scenario.ScenarioRunner;
import dev.hwtool.sim.scenario.StepResult;
import dev.hwtool.sim.script.Scenarios;
import dev.hwtool.sim.script.Script;
import dev.hwtool.sim.script.ScriptParser;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * Runs a scenario script on the simulator (grammar: {@link ScriptParser}; README "hwtool sim").
 * Text: the output of rdmsr/mem read64/lbr/bts/pmi, one "ok" line per expectation that held,
 * then a summary. JSON: one object per command on its own line, each with "simulated": true.
 * The script is read whole first, at most {@link BoundedText#MAX_FILE_BYTES} of UTF-8 text.
 * A failure is one line on stderr with the cause's exit code: 3 a script that does not parse,
 * 10 an unexpected #GP, 14 an expectation that does not hold.
 */
@Command(name = "run", sortOptions = false,
        description = {"Run a scenario script on a simulated CPU: FILE, '-' for standard input, or builtin:NAME "
                + "(see 'hwtool sim list'). The whole script is parsed before anything runs.",
                "Exit code 14 when an expect line does not hold, 10 on an unexpected #GP, 3 when the script does not parse."})
final class SimRunCommand implements Callable<Integer> {

    /** Standard input, replaceable by in-process tests (Main.run has no stdin parameter). */
    static InputStream stdin = System.in;

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "FILE|-|builtin:NAME", description = "The script.")
    String script;

    @Option(names = "--profile", paramLabel = "NAME|FILE",
            description = "Simulator profile for scripts without a 'profile' line (default: "
                    + ScenarioRunner.DEFAULT_PROFILE + "); a built-in name or a CPUID dump file.")
    String profile;

    @Option(names = "--json", description = "One JSON object per command (JSON lines) instead of text.")
    boolean json;

    @Override
    public Integer call() {
        Source src = source();
        Script parsed = ScriptParser.parse(src.origin, src.text);
        ScenarioRunner runner = new ScenarioRunner(profile == null ? ScenarioRunner.DEFAULT_PROFILE : profile, src.loader);
        PrintWriter out = spec.commandLine().getOut();
        try {
            ScenarioResult r = runner.run(parsed, step -> {
                print(out, step);
                out.flush();
            });
            if (!json) {
                out.println("SIMULATED, profile " + TerminalText.quote(r.profile()) + ", CPUs " + r.cpus().stream().map(String::valueOf)
                        .collect(Collectors.joining(",")) + ": " + r.steps().size() + " commands, "
                        + r.expectations() + " expectations held");
            }
            out.flush();
            return ExitCodes.OK;
        } catch (ScenarioException e) {
            if (json) {
                out.println(Json.line(failed(e, parsed)));
            }
            out.flush();
            throw e;
        }
    }

    private record Source(String origin, String text, ProfileLoader loader) {
    }

    private Source source() {
        if (script.equals("-")) {
            return new Source("<stdin>", BoundedText.read(stdin, "<stdin>"), ProfileLoader.relativeTo(Path.of("")));
        }
        if (script.startsWith(Scenarios.PREFIX)) {
            String name = script.substring(Scenarios.PREFIX.length());
            String text = Scenarios.text(name).orElseThrow(() -> new HwException(Cause.BAD_INPUT,
                    "no shipped scenario '" + name + "' (see 'hwtool sim list')"));
            return new Source(script, text, ProfileLoader.shipped());
        }
        Path p;
        try {
            p = Path.of(script);
        } catch (InvalidPathException e) {
            throw new HwException(Cause.BAD_INPUT, "cannot read the script " + TerminalText.quote(script) + ": "
                    + TerminalText.quote(e.getReason()));
        }
        return new Source(script, BoundedText.read(p), ProfileLoader.relativeTo(p.toAbsolutePath().getParent()));
    }

    private void print(PrintWriter out, StepResult s) {
        if (json) {
            out.println(Json.line(toJson(s)));
            return;
        }
        switch (s.outcome()) {
            case DONE -> { }
            case VALUE -> out.println("line " + s.line() + ": " + s.source() + " = " + Numbers.hex64(s.value().getAsLong())
                    + cpuSuffix(s));
            case REPORT -> out.println(s.text());
            case PASSED, FAULTED -> out.println("ok   line " + s.line() + ": " + s.source() + cpuSuffix(s));
        }
    }

    private static String cpuSuffix(StepResult s) {
        return s.cpu().isPresent() ? "  (CPU " + s.cpu().getAsInt() + ")" : "";
    }

    private static Map<String, Object> toJson(StepResult s) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("simulated", true);
        m.put("line", s.line());
        m.put("source", s.source());
        m.put("cpu", s.cpu().isPresent() ? s.cpu().getAsInt() : null);
        m.put("outcome", s.outcome().name().toLowerCase(java.util.Locale.ROOT));
        m.put("value", s.value().isPresent() ? Numbers.hex64(s.value().getAsLong()) : null);
        m.put("expected", s.expected().isPresent() ? Numbers.hex64(s.expected().getAsLong()) : null);
        m.put("text", s.text().isEmpty() ? null : s.text());
        return m;
    }

    private static Map<String, Object> failed(ScenarioException e, Script parsed) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("simulated", true);
        m.put("line", e.line());
        m.put("source", parsed.commands().stream().filter(c -> c.line() == e.line()).findFirst()
                .map(c -> c.source()).orElse(null));
        m.put("cpu", null);
        m.put("outcome", "failed");
        m.put("value", e.actual() == null ? null : Numbers.hex64(e.actual()));
        m.put("expected", e.expected() == null ? null : Numbers.hex64(e.expected()));
        m.put("text", e.getMessage());
        m.put("cause", e.cause().name().toLowerCase(java.util.Locale.ROOT));
        m.put("exit_code", e.cause().exitCode());
        return m;
    }
}
