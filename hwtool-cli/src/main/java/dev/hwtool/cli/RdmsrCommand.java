package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.arch.msr.DecodedField;
import dev.hwtool.arch.msr.MsrDecoder;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.cli.MsrToolsFormat.Base;
import dev.hwtool.cli.MsrToolsFormat.Style;
import dev.hwtool.io.TerminalText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Unmatched;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;

/**
 * {@code rdmsr}, a drop-in for msr-tools 1.3: the same options, parsed as glibc getopt_long does,
 * the same standard output byte for byte, the same exit codes (2 no CPU, 3 no MSRs, 4 #GP, 127
 * usage and other errors). hwtool additions: register names, --decode, --json, --cpu-prefix and
 * the backend options. Main hands it the raw arguments, so picocli's own parsing never applies.
 */
@Command(name = "rdmsr", description = {"Read an MSR, compatible with msr-tools' rdmsr (see 'hwtool rdmsr -h').",
        "REG is a number (0x hex, 0 octal, decimal) or a catalog name such as IA32_DEBUGCTL."})
final class RdmsrCommand implements Callable<Integer> {

    static final String PROGRAM = "rdmsr";

    @Spec
    CommandSpec spec;

    @Unmatched
    List<String> args = new ArrayList<>();

    @Override
    public Integer call() {
        return run(args, spec.commandLine().getOut(), spec.commandLine().getErr());
    }

    private static final List<Getopt.LongOption> COMPAT = List.of(
            lo("help", "h"), lo("version", "V"), lo("hexadecimal", "x"), lo("capital-hexadecimal", "X"),
            lo("decimal", "d"), lo("signed-decimal", "d"), lo("unsigned-decimal", "u"), lo("octal", "o"),
            lo("c-language", "c"), lo("zero-fill", "0"), lo("zero-pad", "0"), lo("raw", "r"), lo("all", "a"),
            new Getopt.LongOption("processor", true, "p"), new Getopt.LongOption("cpu", true, "p"),
            new Getopt.LongOption("bitfield", true, "f"));

    private static final List<Getopt.LongOption> EXTRA = List.of(
            lo("decode", "decode"), lo("json", "json"), lo("cpu-prefix", "cpu-prefix"),
            new Getopt.LongOption("backend", true, "backend"), new Getopt.LongOption("profile", true, "profile"),
            new Getopt.LongOption("binding", true, "binding"));

    private static Getopt.LongOption lo(String name, String key) {
        return new Getopt.LongOption(name, false, key);
    }

    /** What the command line asked for. */
    private static final class Request {
        Style style = Style.DEFAULT;
        int cpu;
        boolean all;
        boolean decode;
        boolean json;
        boolean cpuPrefix;
        final BackendOptions backend = CompatCommands.backendOptions();
    }

    static int run(List<String> args, PrintWriter out, PrintWriter err) {
        Getopt.Result parsed = new Getopt(PROGRAM, "hVxXdoruc0ap:f:", COMPAT, EXTRA).parse(args);
        Request q = new Request();
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
                case "x" -> q.style = q.style.withBase(Base.HEX);
                case "X" -> q.style = q.style.withBase(Base.CAPITAL_HEX);
                case "d" -> q.style = q.style.withBase(Base.SIGNED_DECIMAL);
                case "u" -> q.style = q.style.withBase(Base.UNSIGNED_DECIMAL);
                case "o" -> q.style = q.style.withBase(Base.OCTAL);
                case "r" -> q.style = q.style.withBase(Base.RAW);
                case "c" -> q.style = q.style.withC();
                case "0" -> q.style = q.style.withFill();
                case "a" -> q.all = true;
                case "p" -> {
                    Integer n = CompatCommands.cpuNumber(o.arg(), CompatCommands.MAX_CPU);
                    if (n == null) {
                        return usageError(err, CompatCommands.invalidCpu(o.arg()));
                    }
                    // msr-tools keeps one variable for both: the last of -a and -p wins
                    q.all = false;
                    q.cpu = n;
                }
                case "f" -> {
                    int[] hl = CNumbers.scanBitfield(o.arg());
                    if (hl == null || Integer.compareUnsigned(hl[0], 63) > 0 || Integer.compareUnsigned(hl[1], hl[0]) > 0) {
                        return usageError(err, "invalid bit field '" + o.arg() + "': h:l with l <= h <= 63");
                    }
                    q.style = q.style.withBits(hl[0], hl[1]);
                }
                case "decode" -> q.decode = true;
                case "json" -> q.json = true;
                case "cpu-prefix" -> q.cpuPrefix = true;
                default -> CompatCommands.backendOption(q.backend, o);
            }
        }
        if (parsed.failed()) {
            err.println(TerminalText.quote(parsed.error()));
            usage(err);
            return MsrToolsErrors.OTHER;
        }
        if (parsed.operands().size() != 1) {
            return usageError(err, parsed.operands().isEmpty() ? "no register given" : "one register only, got "
                    + parsed.operands().size() + " operands");
        }
        if (q.decode && q.style.base() == Base.RAW && !q.json) {
            return usageError(err, "--decode prints text; it cannot be combined with -r");
        }
        RegisterArg reg;
        try {
            reg = RegisterArg.parse(parsed.operands().getFirst());
        } catch (UsageException e) {
            return usageError(err, e.getMessage());
        }
        return read(q, reg, out, err);
    }

    private static int read(Request q, RegisterArg reg, PrintWriter out, PrintWriter err) {
        int exit = 0;
        List<Object> results = new ArrayList<>();
        try (MsrSession s = new MsrSession(q.backend)) {
            if (!q.json) {
                s.noteIfSimulated(err);
            }
            List<Integer> cpus = q.all ? s.msr.cpus() : List.of(q.cpu);
            for (int cpu : cpus) {
                long value;
                try {
                    value = s.msr.read(cpu, (int) reg.address());
                } catch (HwException e) {
                    MsrToolsErrors.Failure f = MsrToolsErrors.of(e, MsrToolsErrors.Op.READ, cpu, reg.address(), 0);
                    CompatCommands.report(err, PROGRAM, f, e);
                    if (exit == 0) {
                        exit = f.exit();
                    }
                    if (q.json) {
                        results.add(errorJson(cpu, reg, f));
                    }
                    // hwtool goes on past a CPU that fails (msr-tools stops at the first #GP);
                    // a failure that is the same for every CPU (no driver, no permission) ends it.
                    if (!q.all || f.global()) {
                        break;
                    }
                    continue;
                }
                if (q.json) {
                    results.add(valueJson(cpu, reg, value, q, s.contexts.of(cpu)));
                    continue;
                }
                ByteOut.write(out, MsrToolsFormat.format(value, q.style, q.all && q.cpuPrefix ? cpu : null));
                if (q.decode) {
                    decode(out, err, reg, value, s.contexts.of(cpu));
                }
            }
            if (q.json) {
                Map<String, Object> root = new LinkedHashMap<>();
                root.put("backend", s.platform.description());
                root.put("simulated", s.simulated());
                root.put("reads", results);
                out.println(Json.write(root));
            }
        } catch (UsageException e) {
            return usageError(err, e.getMessage());
        } catch (HwException e) {
            // Not an MSR access: the platform itself (a bad --profile file, no Linux, ...).
            CompatCommands.report(err, PROGRAM, new MsrToolsErrors.Failure(e.getMessage(), MsrToolsErrors.OTHER, true), e);
            return MsrToolsErrors.OTHER;
        }
        out.flush();
        return exit;
    }

    private static void decode(PrintWriter out, PrintWriter err, RegisterArg reg, long value, CpuContext ctx) {
        if (reg.def().isEmpty()) {
            err.println("hwtool: note: " + reg.label() + " is not in hwtool's catalog: no fields to decode");
            err.flush();
            return;
        }
        MsrDef def = reg.def().get();
        if (!def.existsOn(ctx)) {
            err.println("hwtool: note: the catalog says " + def.label() + " does not exist on this CPU (needs "
                    + def.exists().describe() + ")");
            err.flush();
        }
        for (DecodedField f : MsrDecoder.decode(def, value, ctx)) {
            out.println(String.format(Locale.ROOT, "  %-24s %-8s = 0x%x  %s", f.name(), f.bitsText(), f.value(), f.description()));
        }
        out.flush();
    }

    private static Map<String, Object> valueJson(int cpu, RegisterArg reg, long value, Request q, CpuContext ctx) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", cpu);
        m.put("msr", reg.hex());
        m.put("name", reg.name());
        Style st = q.style;
        boolean field = st.bits() < 64;
        m.put("value", field ? "0x" + Long.toHexString(MsrToolsFormat.field(value, st.highBit(), st.lowBit()))
                : Numbers.hex64(value));
        if (field) {
            m.put("bitfield", st.highBit() + ":" + st.lowBit());
        }
        List<Object> fields = null;
        if (reg.def().isPresent()) {
            fields = new ArrayList<>();
            for (DecodedField f : MsrDecoder.decode(reg.def().get(), value, ctx)) {
                Map<String, Object> fm = new LinkedHashMap<>();
                fm.put("name", f.name());
                fm.put("bits", f.hi() == f.lo() ? String.valueOf(f.lo()) : f.hi() + ":" + f.lo());
                fm.put("value", "0x" + Long.toHexString(f.value()));
                fm.put("access", f.access().name().toLowerCase(Locale.ROOT));
                fm.put("description", f.description());
                fields.add(fm);
            }
        }
        m.put("fields", fields);
        return m;
    }

    private static Map<String, Object> errorJson(int cpu, RegisterArg reg, MsrToolsErrors.Failure f) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("cpu", cpu);
        m.put("msr", reg.hex());
        m.put("name", reg.name());
        m.put("error", f.message());
        m.put("exit", f.exit());
        return m;
    }

    private static int usageError(PrintWriter err, String why) {
        err.println(PROGRAM + ": " + TerminalText.quote(why));
        usage(err);
        return MsrToolsErrors.OTHER;
    }

    /** msr-tools 1.3's usage text (to stderr, as rdmsr prints it), then hwtool's additions. */
    static void usage(PrintWriter err) {
        err.print("Usage: " + PROGRAM + " [options] regno\n"
                + "  --help         -h  Print this help\n"
                + "  --version      -V  Print current version\n"
                + "  --hexadecimal  -x  Hexadecimal output (lower case)\n"
                + "  --capital-hex  -X  Hexadecimal output (upper case)\n"
                + "  --decimal      -d  Signed decimal output\n"
                + "  --unsigned     -u  Unsigned decimal output\n"
                + "  --octal        -o  Octal output\n"
                + "  --c-language   -c  Format output as a C language constant\n"
                + "  --zero-pad     -0  Output leading zeroes\n"
                + "  --raw          -r  Raw binary output\n"
                + "  --all          -a  all processors\n"
                + "  --processor #  -p  Select processor number (default 0)\n"
                + "  --bitfield h:l -f  Output bits [h:l] only\n"
                + "hwtool additions:\n"
                + "  regno may be an MSR name (IA32_DEBUGCTL, case-insensitive) or 0x hex, 0 octal, decimal\n"
                + "  --decode           Also print the register's fields by name\n"
                + "  --json             JSON: {backend, simulated, reads: [{cpu, msr, name, value, fields}]}\n"
                + "  --cpu-prefix       With -a, prefix each line with 'CPU N: ' (as msr-tools after 1.3)\n"
                + "  --backend B        hw (this machine), sim (a simulated CPU) or auto\n"
                + "  --profile NAME     Simulator profile or CPUID dump file (implies --backend sim)\n"
                + "  --binding B        ffm (default) or jna\n"
                + "Exit: 0 ok, 2 no such CPU, 3 CPU without MSRs, 4 cannot read (#GP), 127 usage or other error\n");
        err.flush();
    }
}
