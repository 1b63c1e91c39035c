package dev.hwtool.sim.scenario;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import dev.hwtool.arch.msr.MsrFieldWrite;
import dev.hwtool.sim.Profile;
import dev.hwtool.sim.SimulatedPlatform;
import dev.hwtool.sim.cpu.Diagnostic;
import dev.hwtool.sim.cpu.DsInterruptRoutine;
import dev.hwtool.sim.cpu.LogicalProcessor;
import dev.hwtool.sim.cpu.SimulatedMachine;
import dev.hwtool.sim.cpu.internal.CpuInternals;
import dev.hwtool.sim.scenario.StepResult.Outcome;
import dev.hwtool.sim.script.Command;
import dev.hwtool.sim.script.Count;
import dev.hwtool.sim.script.Probe;
import dev.hwtool.sim.script.RegisterRef;
import dev.hwtool.sim.script.Scenarios;
import dev.hwtool.sim.script.Script;
import dev.hwtool.sim.script.ScriptParser;

import java.nio.file.InvalidPathException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.function.Consumer;

/**
 * Runs a parsed {@link Script} on a fresh simulated machine, command by command, and reports
 * each command's {@link StepResult}. Deterministic: the same script, default profile and
 * profiles give the same results (the simulator has no wall clock and no randomness).
 *
 * <p>The machine: the script's {@code profile} line, else the caller's default profile; the
 * script's {@code cpus N} (the profile's first N CPUs), else all of them; the current CPU is the
 * lowest until {@code cpu N}. By default no PMI handler runs: PMIs are recorded and the freeze
 * rules applied, and the script plays the interrupt routine ({@code handler builtin} installs
 * {@link DsInterruptRoutine} on the current CPU).
 *
 * <p>The run stops at the first failure with a {@link ScenarioException}: a failed
 * {@code expect} or an {@code expect-fault} that did not fault ({@link Cause#EXPECTATION_FAILED}),
 * an unexpected #GP ({@link Cause#REGISTER_FAULT}), or another failure of the machine with its
 * own cause (no such CPU, an unknown profile: {@link Cause#BAD_INPUT}...), always
 * {@code ORIGIN:LINE: what}.
 */
public final class ScenarioRunner {

    private static final CpuInternals.CpuView<LogicalProcessor> CPU = CpuInternals.view(LogicalProcessor.class);

    /** The profile a script runs on when neither it nor the caller names one. */
    public static final String DEFAULT_PROFILE = "skylake";

    private final String defaultProfile;
    private final ProfileLoader loader;

    public ScenarioRunner() {
        this(DEFAULT_PROFILE, ProfileLoader.standard());
    }

    /**
     * @param defaultProfile the profile for scripts without a {@code profile} line (e.g. the CLI's --profile)
     * @param loader         how profile names and files are found
     */
    public ScenarioRunner(String defaultProfile, ProfileLoader loader) {
        this.defaultProfile = Objects.requireNonNull(defaultProfile, "defaultProfile");
        this.loader = Objects.requireNonNull(loader, "loader");
    }

    /** Runs {@code script}; every result is also passed to {@code each} as it happens. */
    public ScenarioResult run(Script script, Consumer<StepResult> each) {
        return new Run(script, each).all();
    }

    public ScenarioResult run(Script script) {
        return run(script, r -> { });
    }

    /** Runs a shipped scenario (profile {@code defaultProfile} unless the script names one). */
    public static ScenarioResult runShipped(String name, String defaultProfile) {
        return new ScenarioRunner(defaultProfile, ProfileLoader.shipped()).run(Scenarios.script(name));
    }

    /** One run: the machine and the results so far. */
    private final class Run {
        private final Script script;
        private final Consumer<StepResult> each;
        private final List<StepResult> results = new ArrayList<>();
        private String profileName = defaultProfile;
        private int profileLine;
        private Integer cpuCount;
        private SimulatedPlatform platform;
        private LogicalProcessor cpu;
        private long expectations;

        Run(Script script, Consumer<StepResult> each) {
            this.script = script;
            this.each = each;
        }

        ScenarioResult all() {
            header();
            for (Command c : script.commands()) {
                StepResult r;
                try {
                    r = step(c);
                } catch (ScenarioException e) {
                    throw e;
                } catch (HwException e) {
                    throw fail(e.cause(), c, e.getMessage(), null, null);
                }
                results.add(r);
                each.accept(r);
            }
            List<Integer> cpus = platform == null ? List.of() : platform.machine().cpuNumbers();
            return new ScenarioResult(script.origin(), profileName, cpus, results, expectations);
        }

        /**
         * The script's machine, from its header ({@code profile}, {@code cpus}: once, before the
         * rest, as the parser requires), made before any command runs: a profile that cannot be
         * loaded fails the script at its {@code profile} line, as a parse error would, instead of
         * a script of header lines alone "running" on no CPUs.
         */
        private void header() {
            Command profileAt = null;
            Command cpusAt = null;
            for (Command c : script.commands()) {
                switch (c) {
                    case Command.UseProfile p -> {
                        profileName = p.profile();
                        profileLine = p.line();
                        profileAt = c;
                    }
                    case Command.UseCpus n -> {
                        cpuCount = n.count();
                        cpusAt = c;
                    }
                    default -> { }
                }
            }
            Command first = script.commands().isEmpty() ? null : script.commands().getFirst();
            Profile p;
            try {
                p = load();
            } catch (HwException e) {
                throw first == null ? e : fail(e.cause(), profileAt != null ? profileAt : first, e.getMessage(), null, null);
            }
            try {
                boot(p);
            } catch (HwException e) {
                throw first == null ? e : fail(e.cause(), cpusAt != null ? cpusAt : first, e.getMessage(), null, null);
            }
        }

        private ScenarioException fail(Cause cause, Command c, String what, Long expected, Long actual) {
            return new ScenarioException(cause, ScriptParser.printable(script.origin() + ":" + c.line() + ": " + what),
                    c.line(), results,
                    expected, actual);
        }

        private Profile load() {
            try {
                return loader.load(profileName);
            } catch (InvalidPathException e) {
                throw new HwException(Cause.BAD_INPUT, "no simulator profile '" + profileName + "': " + e.getMessage());
            }
        }

        private void boot(Profile p) {
            platform = cpuCount == null ? new SimulatedPlatform(p) : new SimulatedPlatform(p, cpuCount);
            SimulatedMachine m = platform.machine();
            cpu = m.cpu(m.cpuNumbers().getFirst());
        }

        private SimulatedMachine machine(int line) {
            if (platform == null) {
                boot(load());
            }
            return platform.machine();
        }

        private LogicalProcessor cpu() {
            machine(0);
            return cpu;
        }

        private StepResult done(Command c) {
            return new StepResult(c.line(), c.source(), cpuOf(c), Outcome.DONE, OptionalLong.empty(), "",
                    OptionalLong.empty());
        }

        private OptionalInt cpuOf(Command c) {
            return c.usesMachine() ? OptionalInt.of(cpu().number()) : OptionalInt.empty();
        }

        private StepResult step(Command c) {
            return switch (c) {
                // the header: read and the machine made before the first command (header())
                case Command.UseProfile p -> done(c);
                case Command.UseCpus n -> done(c);
                case Command.SelectCpu s -> {
                    cpu = machine(s.line()).cpu(s.cpu());
                    yield done(c);
                }
                case Command.Wrmsr w -> {
                    write(w.register(), w.value());
                    yield done(c);
                }
                case Command.Rdmsr r -> value(c, cpu().rdmsr(address(r.register())), "");
                case Command.MemWrite m -> {
                    machine(c.line()).memory().write64(m.address(), m.value());
                    yield done(c);
                }
                case Command.MemRead m -> value(c, machine(c.line()).memory().read64(m.address()), "");
                case Command.Branch b -> {
                    cpu().branch(b.from(), b.to(), b.type(), b.cpl(), b.mispredicted());
                    yield done(c);
                }
                case Command.Branches b -> {
                    LogicalProcessor x = cpu();
                    for (long i = 0; i < b.count(); i++) {
                        long off = i * ScriptParser.BURST_STRIDE;
                        x.branch(b.from() + off, b.to() + off, b.type(), b.cpl(), b.mispredicted());
                    }
                    yield done(c);
                }
                case Command.Instructions i -> {
                    cpu().instructions(i.count(), i.cpl());
                    yield done(c);
                }
                case Command.Cycles y -> {
                    cpu().cycles(y.count());
                    yield done(c);
                }
                case Command.RunWorkload w -> {
                    LogicalProcessor x = cpu();
                    long before = x.stats().branches();
                    w.workload().run(x);
                    yield new StepResult(c.line(), c.source(), cpuOf(c), Outcome.DONE, OptionalLong.empty(),
                            (x.stats().branches() - before) + " branches retired (" + w.workload().describe() + ")",
                            OptionalLong.empty());
                }
                case Command.Show s -> new StepResult(c.line(), c.source(), cpuOf(c), Outcome.REPORT,
                        OptionalLong.empty(), Reports.of(s.report(), cpu()), OptionalLong.empty());
                case Command.SetHandler h -> {
                    cpu().setPmiHandler(h.builtin() ? new DsInterruptRoutine() : null);
                    yield done(c);
                }
                case Command.SingleStep s -> {
                    cpu().setTrapFlag(s.on());
                    yield done(c);
                }
                case Command.PlatformValue p -> {
                    LogicalProcessor x = cpu();
                    long address = address(p.register());
                    long v = p.register().field() == null ? p.value()
                            : withField(p.register(), x.rdmsr(address), p.value());
                    x.setPlatformValue(address, v);
                    yield done(c);
                }
                case Command.Expect e -> expect(e);
                case Command.ExpectDiagnostic d -> expectDiagnostic(d);
                case Command.ExpectFault f -> expectFault(f);
            };
        }

        private StepResult value(Command c, long v, String text) {
            return new StepResult(c.line(), c.source(), cpuOf(c), Outcome.VALUE, OptionalLong.of(v), text,
                    OptionalLong.empty());
        }

        /** The register's definition on the current CPU, or the catalog's where the CPU lacks it (the access then #GPs). */
        private MsrDef def(RegisterRef r) {
            CpuContext ctx = CPU.context(cpu());
            if (r.name() == null) {
                return MsrCatalog.byAddress(r.address()).orElse(null);
            }
            return MsrCatalog.byName(r.name(), ctx).or(() -> MsrCatalog.byName(r.name())).orElseThrow();
        }

        private long address(RegisterRef r) {
            return r.name() == null ? r.address() : def(r).address();
        }

        private MsrField field(RegisterRef r) {
            return def(r).field(r.field()).orElseThrow();
        }

        private long withField(RegisterRef r, long old, long fieldValue) {
            try {
                return MsrFieldWrite.apply(def(r), field(r), old, fieldValue, CPU.context(cpu()));
            } catch (IllegalArgumentException e) {
                throw new HwException(Cause.BAD_INPUT, e.getMessage() + " on this CPU");
            }
        }

        private void write(RegisterRef r, long value) {
            LogicalProcessor x = cpu();
            long address = address(r);
            long v = r.field() == null ? value : withField(r, x.rdmsr(address), value);
            x.wrmsr(address, v);
        }

        private long read(Probe probe) {
            return switch (probe) {
                case Probe.Register r -> {
                    long v = cpu().rdmsr(address(r.register()));
                    yield r.register().field() == null ? v : field(r.register()).extract(v);
                }
                case Probe.Memory m -> machine(0).memory().read64(m.address());
                case Probe.Counted n -> n.count().of(cpu().stats());
            };
        }

        private StepResult expect(Command.Expect e) {
            long actual = read(e.probe());
            if (actual != e.expected()) {
                throw fail(Cause.EXPECTATION_FAILED, e, "expect " + e.probe().text() + ": expected " + hex(e.expected())
                        + ", got " + hex(actual) + " (CPU " + cpu.number() + ")", e.expected(), actual);
            }
            expectations++;
            return new StepResult(e.line(), e.source(), cpuOf(e), Outcome.PASSED, OptionalLong.of(actual), "",
                    OptionalLong.of(e.expected()));
        }

        private StepResult expectDiagnostic(Command.ExpectDiagnostic d) {
            List<Diagnostic> all = cpu().diagnostics();
            for (Diagnostic x : all) {
                if (x.code().equals(d.code())) {
                    expectations++;
                    return new StepResult(d.line(), d.source(), cpuOf(d), Outcome.PASSED, OptionalLong.empty(),
                            x.message(), OptionalLong.empty());
                }
            }
            throw fail(Cause.EXPECTATION_FAILED, d, "expect diagnostic " + d.code() + ": not flagged on CPU "
                    + cpu.number() + " (flagged: " + (all.isEmpty() ? "none"
                    : String.join(", ", all.stream().map(Diagnostic::code).toList())) + ")", null, null);
        }

        private StepResult expectFault(Command.ExpectFault f) {
            try {
                switch (f.access()) {
                    case Command.Wrmsr w -> write(w.register(), w.value());
                    case Command.Rdmsr r -> {
                        long v = cpu().rdmsr(address(r.register()));
                        throw fail(Cause.EXPECTATION_FAILED, f, "expect-fault rdmsr " + r.register().text()
                                + ": no #GP, read " + hex(v), null, v);
                    }
                    default -> throw new IllegalStateException("expect-fault of " + f.access());
                }
            } catch (ScenarioException e) {
                throw e;
            } catch (HwException e) {
                if (e.cause() != Cause.REGISTER_FAULT) {
                    throw e;
                }
                expectations++;
                return new StepResult(f.line(), f.source(), cpuOf(f), Outcome.FAULTED, OptionalLong.empty(),
                        e.getMessage(), OptionalLong.empty());
            }
            throw fail(Cause.EXPECTATION_FAILED, f, f.source() + ": the write did not fault",
                    null, null);
        }
    }

    static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }
}
