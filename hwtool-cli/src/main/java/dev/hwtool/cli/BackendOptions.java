package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import picocli.CommandLine.Option;

import java.util.stream.Collectors;

/**
 * Which machine a command talks to. Decided once, here, at start-up; the commands only see
 * the {@link Platform}. The hardware backend never falls back to the simulator silently.
 */
public final class BackendOptions {

    @Option(names = "--backend", paramLabel = "auto|hw|sim",
            description = "The machine to use: hw (this one), sim (a simulated CPU), or auto: this machine, "
                    + "or the simulator when --profile is given. Default: $HWTOOL_BACKEND, else auto.")
    String backend;

    @Option(names = "--profile", paramLabel = "NAME|FILE",
            description = "Simulator profile: a built-in name (see 'hwtool caps --list-profiles') or a CPUID dump file.")
    String profile;

    @Option(names = "--binding", paramLabel = "ffm|jna", defaultValue = "ffm",
            description = "Native binding of the hardware backend: ffm (default, Java FFM API) or jna.")
    String binding;

    /** The backend asked for, after the environment and the defaults. */
    String resolvedBackend() {
        String b = backend != null ? backend : System.getenv().getOrDefault("HWTOOL_BACKEND", "auto");
        if (!b.equals("auto") && !b.equals("hw") && !b.equals("sim")) {
            throw new UsageException("unknown backend '" + b + "' (auto, hw, sim)"
                    + (backend == null ? " in HWTOOL_BACKEND" : ""));
        }
        if (!binding.equals("ffm") && !binding.equals("jna")) {
            throw new UsageException("unknown binding '" + binding + "' (ffm, jna)");
        }
        if (b.equals("auto")) {
            b = profile != null ? "sim" : "hw";
        }
        if (b.equals("sim") && profile == null) {
            throw new UsageException("--backend sim needs --profile NAME|FILE (built in: " + profileNames() + ")");
        }
        if (b.equals("hw") && profile != null) {
            throw new UsageException("--profile applies to the simulator; it cannot be used with --backend hw");
        }
        return b;
    }

    boolean simulated() {
        return resolvedBackend().equals("sim");
    }

    Platform open() {
        if (simulated()) {
            return SimulatedPlatform.of(profile);
        }
        if (binding.equals("jna")) {
            JnaLog.quiet();
        }
        try {
            return LinuxPlatform.open(binding);
        } catch (HwException e) {
            throw new HwException(e.cause(), e.getMessage(),
                    e.remedy().orElse("") + (e.remedy().isPresent() ? "; or " : "")
                            + "ask for the simulator: --backend sim --profile NAME");
        }
    }

    static String profileNames() {
        return Profiles.builtIn().stream().map(Profiles.Entry::name).collect(Collectors.joining(", "));
    }

    private static final java.util.Set<String> NAMES = java.util.Set.of("--backend", "--profile", "--binding");

    /**
     * {@code hwtool --backend sim --profile skylake rdmsr 0x10}: backend options written before
     * the command belong to it. They are moved after the command's name (after
     * {@code pathLength} words of the rest: {@code msr restore}), where each command that takes
     * them accepts them; a command that does not take them then says so by name. Arguments that
     * do not start with one of these options are returned as they are; without a command after
     * them they are a usage error that says so (not picocli's guess that a value is the command).
     */
    static String[] hoisted(String[] args, java.util.function.ToIntFunction<java.util.List<String>> pathLength) {
        java.util.List<String> leading = new java.util.ArrayList<>();
        int i = 0;
        while (i < args.length) {
            String a = args[i];
            int eq = a.indexOf('=');
            if (NAMES.contains(a) && i + 1 < args.length) {
                leading.add(a);
                leading.add(args[i + 1]);
                i += 2;
            } else if (eq > 0 && NAMES.contains(a.substring(0, eq))) {
                leading.add(a);
                i++;
            } else {
                break;
            }
        }
        if (leading.isEmpty()) {
            return args;
        }
        java.util.List<String> rest = java.util.Arrays.asList(args).subList(i, args.length);
        int path = pathLength.applyAsInt(rest);
        if (path == 0) {
            throw new UsageException((rest.isEmpty() ? "no command given" : "'" + rest.getFirst() + "' is not a command")
                    + ": " + leading.getFirst().replaceFirst("=.*", "") + " is an option of a command, e.g."
                    + " hwtool rdmsr --backend sim --profile skylake 0x10 (see 'hwtool --help')");
        }
        java.util.List<String> out = new java.util.ArrayList<>(rest.subList(0, path));
        out.addAll(leading);
        out.addAll(rest.subList(path, rest.size()));
        return out.toArray(String[]::new);
    }

    /**
     * JNA reports a temporary directory it cannot use through java.util.logging, with a stack
     * trace, before failing; hwtool reports that failure itself, in one line (Bindings). Only
     * for --binding jna: starting java.util.logging costs every other command start-up time.
     * Held here because LogManager keeps loggers only weakly.
     */
    private static final class JnaLog {
        private static final java.util.logging.Logger LOG = java.util.logging.Logger.getLogger("com.sun.jna");

        static void quiet() {
            if (System.getenv("HWTOOL_DEBUG") == null) {
                LOG.setLevel(java.util.logging.Level.SEVERE);
            }
        }
    }
}
