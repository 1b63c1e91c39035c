package dev.hwtool.cli;

import dev.hwtool.msr.MsrJournal;
import dev.hwtool.msr.MsrRegister;
import dev.hwtool.msr.MsrWriter;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import dev.hwtool.io.TerminalText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;

/**
 * {@code wrmsr}: msr-tools' invocation ({@code wrmsr [-p N|-a] regno value...}, each value written
 * in turn) plus {@code REG.FIELD=VALUE} read-modify-writes, every write through
 * {@link MsrWriter}: catalog checks first, journal, read-back verification, all or nothing.
 */
@Command(name = "wrmsr", description = {"Write an MSR carefully; msr-tools' wrmsr invocation (see 'hwtool wrmsr -h').",
        "Also REG.FIELD=VALUE (read-modify-write), --dry-run, and an undo journal (hwtool msr restore --last)."})
final class WrmsrCommand implements Callable<Integer> {

    static final String PROGRAM = "wrmsr";

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    private static final List<Getopt.LongOption> COMPAT = List.of(
            new Getopt.LongOption("help", false, "h"), new Getopt.LongOption("version", false, "V"),
            new Getopt.LongOption("all", false, "a"),
            new Getopt.LongOption("processor", true, "p"), new Getopt.LongOption("cpu", true, "p"));

    private static final List<Getopt.LongOption> EXTRA = List.of(
            new Getopt.LongOption("dry-run", false, "dry-run"), new Getopt.LongOption("force", false, "force"),
            new Getopt.LongOption("backend", true, "backend"), new Getopt.LongOption("profile", true, "profile"),
            new Getopt.LongOption("binding", true, "binding"));

    static int run(List<String> args, PrintWriter out, PrintWriter err) {
        Getopt.Result parsed = new Getopt(PROGRAM, "hVap:", COMPAT, EXTRA).parse(args);
        int cpu = 0;
        boolean all = false;
        boolean dryRun = false;
        boolean force = false;
        BackendOptions backend = CompatCommands.backendOptions();
        for (Getopt.Opt o : parsed.options()) {
            switch (o.key()) {
                case "h" -> {
                    usage(err);
                    return 0;
                }
                case "V" -> {
                    err.println(CompatCommands.version(PROGRAM));
                    err.flush();
                    return 0;
                }
                case "a" -> all = true;
                case "p" -> {
                    Integer n = CompatCommands.cpuNumber(o.arg(), CompatCommands.MAX_CPU);
                    if (n == null) {
                        return usageError(err, CompatCommands.invalidCpu(o.arg()));
                    }
                    all = false;
                    cpu = n;
                }
                case "dry-run" -> dryRun = true;
                case "force" -> force = true;
                default -> CompatCommands.backendOption(backend, o);
            }
        }
        if (parsed.failed()) {
            err.println(TerminalText.quote(parsed.error()));
            usage(err);
            return MsrToolsErrors.OTHER;
        }
        List<String> ops = parsed.operands();
        List<Target> targets;
        try {
            targets = !ops.isEmpty() && ops.getFirst().contains("=") ? fieldTargets(ops) : valueTargets(ops);
        } catch (UsageException e) {
            return usageError(err, e.getMessage());
        }
        return write(targets, cpu, all, dryRun, force, backend, out, err);
    }

    /** One register and what to write to it, before the CPUs are known. */
    private record Target(RegisterArg reg, List<MsrWriter.Change> changes) {
    }

    /** msr-tools' form: REG VALUE... — each value written in turn. */
    private static List<Target> valueTargets(List<String> ops) {
        if (ops.size() < 2) {
            throw new UsageException(ops.isEmpty() ? "no register and value given" : "no value given for " + ops.getFirst());
        }
        RegisterArg reg = RegisterArg.parse(ops.getFirst());
        List<MsrWriter.Change> changes = new ArrayList<>();
        for (String v : ops.subList(1, ops.size())) {
            changes.add(new MsrWriter.Change.Whole(value(v, 64, "value")));
        }
        return List.of(new Target(reg, changes));
    }

    /**
     * REG.FIELD=VALUE [FIELD=VALUE | REG.FIELD=VALUE]...: a bare FIELD belongs to the register
     * named before it; each register is read once and written once with all its fields.
     */
    private static List<Target> fieldTargets(List<String> ops) {
        Map<Long, RegisterArg> regs = new LinkedHashMap<>();
        Map<Long, List<MsrWriter.FieldValue>> fields = new LinkedHashMap<>();
        RegisterArg current = null;
        for (String op : ops) {
            int eq = op.indexOf('=');
            if (eq < 0) {
                throw new UsageException("'" + op + "' is not FIELD=VALUE (write whole values as: wrmsr REG VALUE)");
            }
            String path = op.substring(0, eq);
            int dot = path.lastIndexOf('.');
            if (dot >= 0) {
                current = RegisterArg.parse(path.substring(0, dot));
            } else if (current == null) {
                throw new UsageException("'" + op + "' names no register: write REG.FIELD=VALUE");
            }
            RegisterArg reg = current;
            MsrDef def = reg.def().orElseThrow(() -> new UsageException(
                    reg.label() + " is not in hwtool's catalog, so it has no named fields: write a whole value"));
            String fieldName = path.substring(dot + 1);
            MsrField field = def.field(fieldName).orElseThrow(() -> new UsageException(def.name() + " has no field '"
                    + fieldName + "' (fields: " + def.fields().stream().map(MsrField::name).collect(Collectors.joining(", ")) + ")"));
            regs.putIfAbsent(reg.address(), reg);
            fields.computeIfAbsent(reg.address(), k -> new ArrayList<>())
                    .add(new MsrWriter.FieldValue(field, value(op.substring(eq + 1), 64, def.name() + "." + field.name())));
        }
        List<Target> out = new ArrayList<>();
        regs.forEach((a, reg) -> out.add(new Target(reg, List.of(new MsrWriter.Change.Fields(fields.get(a))))));
        return out;
    }

    /** Unlike msr-tools' strtoull, which writes 0 for "garbage", a value must be a whole C literal. */
    private static long value(String text, int bits, String what) {
        OptionalLong v = CNumbers.strict(text, bits);
        if (v.isEmpty()) {
            throw new UsageException(what + " '" + text + "' is not a " + bits + "-bit number (0x hex, 0 octal, decimal)");
        }
        return v.getAsLong();
    }

    private static int write(List<Target> targets, int cpu, boolean all, boolean dryRun, boolean force,
                             BackendOptions backend, PrintWriter out, PrintWriter err) {
        MsrSession session;
        try {
            session = new MsrSession(backend);
        } catch (UsageException e) {
            return usageError(err, e.getMessage());
        } catch (HwException e) {
            // Not an MSR access: the platform itself (a bad --profile file, no Linux, ...), as rdmsr.
            CompatCommands.report(err, PROGRAM, new MsrToolsErrors.Failure(e.getMessage(), MsrToolsErrors.OTHER, true), e);
            return MsrToolsErrors.OTHER;
        }
        try (MsrSession s = session) {
            s.noteIfSimulated(err);
            List<Integer> cpus = all ? s.msr.cpus() : List.of(cpu);
            List<MsrWriter.Request> requests = new ArrayList<>();
            for (int c : cpus) {
                for (Target t : targets) {
                    requests.add(new MsrWriter.Request(c, new MsrRegister(t.reg().address(), t.reg().def()), t.changes()));
                }
            }
            MsrWriter w = s.writer(force, err);
            // Refusals first, before the journal is touched (a catalog refusal is exit 3 whatever
            // the state directory's state).
            List<MsrWriter.Planned> checked = w.plan(requests);
            if (dryRun) {
                w.describe(checked).forEach(out::println);
                out.println("dry run: nothing written");
                out.flush();
                return 0;
            }
            // Then the journal's lock, and the old values read again under it until the batch is
            // done: concurrent writers serialize whole batches. The backend's own journal: a
            // simulated batch never lands in the one hardware's restore --last reads.
            try (MsrJournal.Locked journal = s.journal().lock(err)) {
                w.execute(journal, w.plan(requests), MsrJournal.Kind.WRMSR, null);
            }
            return 0;
        } catch (UsageException e) {
            return usageError(err, e.getMessage());
        } catch (MsrWriter.AccessFailure f) {
            MsrToolsErrors.Failure m = MsrToolsErrors.of(f.underlying(), op(f), f.cpu(), f.msr(), f.value());
            CompatCommands.report(err, PROGRAM, m, f.underlying());
            return m.exit();
        } catch (HwException e) {
            // Catalog refusals (BAD_INPUT 3, UNSUPPORTED 11), VERIFICATION_FAILED 12, journal errors.
            err.println(PROGRAM + ": " + TerminalText.quote(e.getMessage()));
            e.remedy().ifPresent(r -> err.println("hwtool: fix: " + r));
            err.flush();
            return exit(e);
        }
    }

    /** msr-tools' name of the access that failed. */
    static MsrToolsErrors.Op op(MsrWriter.AccessFailure f) {
        return f.op() == MsrWriter.Op.READ ? MsrToolsErrors.Op.READ : MsrToolsErrors.Op.WRITE;
    }

    /**
     * The exit code of a failure outside msr-tools' own (which {@link MsrToolsErrors} maps): only
     * the codes the usage text lists. A CPU that does not exist is msr-tools' 2, a #GP its 4; catalog refusals
     * and a journal that is not a readable journal file are 3, a register or field this CPU lacks
     * 11, a read-back that differs 12, a journal that cannot be written (nothing written) 13;
     * anything else (reading the CPU's CPUID, say) is msr-tools' 127.
     */
    static int exit(HwException e) {
        return switch (e.cause()) {
            case NO_SUCH_CPU -> 2;
            case REGISTER_FAULT -> 4;
            case BAD_INPUT, UNSUPPORTED, VERIFICATION_FAILED, OS_ERROR -> e.cause().exitCode();
            default -> MsrToolsErrors.OTHER;
        };
    }

    private static int usageError(PrintWriter err, String why) {
        err.println(PROGRAM + ": " + TerminalText.quote(why));
        usage(err);
        return MsrToolsErrors.OTHER;
    }

    /** msr-tools 1.3's usage text (stderr), then hwtool's additions. */
    static void usage(PrintWriter err) {
        err.print("Usage: " + PROGRAM + " [options] regno value...\n"
                + "  --help         -h  Print this help\n"
                + "  --version      -V  Print current version\n"
                + "  --all          -a  all processors\n"
                + "  --processor #  -p  Select processor number (default 0)\n"
                + "hwtool additions:\n"
                + "  " + PROGRAM + " [options] REG.FIELD=VALUE [FIELD=VALUE...]   read-modify-write named fields\n"
                + "  regno may be an MSR name (IA32_DEBUGCTL, case-insensitive) or 0x hex, 0 octal, decimal\n"
                + "  --dry-run          Read and show old -> new per field; write nothing\n"
                + "  --force            Allow writing a register that is not in hwtool's catalog\n"
                + "  --backend B        hw (this machine), sim (a simulated CPU) or auto\n"
                + "  --profile NAME     Simulator profile or CPUID dump file (implies --backend sim)\n"
                + "  --binding B        ffm (default) or jna\n"
                + "Every write is checked against the catalog, journaled, read back and verified; with -a,\n"
                + "all CPUs or none. Undo the last write: hwtool msr restore --last (with the same\n"
                + "--backend/--profile: the simulator's batches are in a journal of their own)\n"
                + "Exit: 0 ok, 2 no such CPU, 3 refused by the catalog, CPU without MSRs, or a damaged\n"
                + "      journal file, 4 #GP, 11 register or field not on this CPU, 12 verification failed,\n"
                + "      13 the journal could not be written (nothing written) or another OS error,\n"
                + "      127 usage error or any other error (pwrite: Operation not permitted: lockdown or\n"
                + "      msr.allow_writes=off; open: <strerror>: no driver, no permission)\n");
        err.flush();
    }
}
