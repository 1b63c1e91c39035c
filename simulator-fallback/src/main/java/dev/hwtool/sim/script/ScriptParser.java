package dev.hwtool.sim.script;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.arch.msr.MsrField;
import dev.hwtool.io.TerminalText;

import dev.hwtool.sim.workload.Workloads;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Parses a scenario script. One command a line; {@code #} starts a comment; numbers are
 * decimal or {@code 0x} hex, unsigned 64-bit; registers are catalog names (case-insensitive)
 * or numbers, {@code REG.FIELD} names one field.
 *
 * <pre>
 * profile NAME|FILE          cpus N          cpu N
 * wrmsr REG VALUE            wrmsr REG.FIELD VALUE            rdmsr REG
 * mem write64 ADDR VALUE     mem read64 ADDR
 * branch FROM TO [cpl=N] [type=T] [mispredict]
 * branches N [from=A] [to=B] [cpl=N] [type=T] [mispredict]
 * instructions N [cpl=N]
 * lbr                        bts                        pmi
 * expect REG VALUE           expect REG.FIELD VALUE     expect mem64:ADDR VALUE
 * expect pmi.count N         expect btm.count N         expect lbr.count N
 * expect-fault wrmsr REG VALUE                          expect-fault rdmsr REG
 * </pre>
 * Extensions: {@code handler builtin|none}, {@code cycles N}, {@code single-step on|off},
 * {@code platform REG[.FIELD] VALUE}, {@code expect btm.stored|btm.dropped|pebs.count|pebs.dropped|pmi.masked|db.count|instructions|cycles N},
 * {@code expect diagnostic CODE}, {@code expect-fault wrmsr REG.FIELD VALUE},
 * {@code [mispredict]} on {@code branches}, and {@code workload SPEC} — a generator or trace
 * file ({@link Workloads#grammar()}; a trace path is relative to the script's directory)
 * retired on the current CPU.
 *
 * <p>Defaults: branch and instructions at {@code cpl=3}, branch {@code type=jcc}. For
 * {@code branches}, branch i (from 0) goes from {@code from + 16·i} to {@code to + 16·i};
 * from and to default to {@value #USER_FROM_TEXT}/{@value #USER_TO_TEXT} at CPL &gt; 0 and
 * {@value #KERNEL_FROM_TEXT}/{@value #KERNEL_TO_TEXT} at CPL 0 (user and kernel text of a
 * 64-bit Linux process), so every entry of a burst is distinguishable. {@code profile} and
 * {@code cpus} may appear once each, before any other command.
 *
 * <p>Every error is one {@link HwException} with {@link Cause#BAD_INPUT} and the message
 * {@code ORIGIN:LINE: what}; nothing else escapes, whatever the text.
 */
public final class ScriptParser {

    static final String USER_FROM_TEXT = "0x401000";
    static final String USER_TO_TEXT = "0x402000";
    static final String KERNEL_FROM_TEXT = "0xffffffff81001000";
    static final String KERNEL_TO_TEXT = "0xffffffff81002000";
    static final long USER_FROM = 0x401000L;
    static final long USER_TO = 0x402000L;
    static final long KERNEL_FROM = 0xffffffff81001000L;
    static final long KERNEL_TO = 0xffffffff81002000L;
    /** Distance between consecutive branches of a {@code branches} burst. */
    public static final long BURST_STRIDE = 16;
    /** Most branches one {@code branches} line may retire (each is a call into the simulated CPU). */
    public static final long MAX_BURST = 100_000_000L;

    private static final Pattern HEX = Pattern.compile("0[xX][0-9a-fA-F]{1,16}");
    private static final Pattern DEC = Pattern.compile("[0-9]{1,20}");
    private static final Pattern DIAGNOSTIC = Pattern.compile("[a-z0-9][a-z0-9-]*");
    private static final String COMMANDS = "profile, cpus, cpu, wrmsr, rdmsr, mem, branch, branches, instructions, "
            + "cycles, workload, lbr, bts, pmi, handler, single-step, platform, expect, expect-fault";

    private final String origin;

    private ScriptParser(String origin) {
        this.origin = origin;
    }

    /** Parses the whole text; the first error anywhere is thrown and nothing is returned. */
    public static Script parse(String origin, String text) {
        return new ScriptParser(origin).parseAll(text);
    }

    private Script parseAll(String text) {
        List<Command> out = new ArrayList<>();
        int firstMachineLine = 0;
        Map<String, Integer> seen = new HashMap<>();
        String[] lines = text.split("\r\n|\n|\r", -1);
        for (int i = 0; i < lines.length; i++) {
            int n = i + 1;
            String raw = lines[i];
            int hash = raw.indexOf('#');
            String body = (hash >= 0 ? raw.substring(0, hash) : raw).strip();
            if (body.isEmpty()) {
                continue;
            }
            Command c = new Line(n, body).command();
            if (c.usesMachine()) {
                if (firstMachineLine == 0) {
                    firstMachineLine = n;
                }
            } else {
                String word = c instanceof Command.UseProfile ? "profile" : "cpus";
                if (firstMachineLine != 0) {
                    throw error(n, "'" + word + "' must come before any command that uses the machine (line "
                            + firstMachineLine + " does)");
                }
                Integer before = seen.putIfAbsent(word, n);
                if (before != null) {
                    throw error(n, "'" + word + "' given twice (first at line " + before + ")");
                }
            }
            out.add(c);
        }
        return new Script(origin, out);
    }

    /** Where relative trace files of {@code workload trace FILE} are found: beside the script, else here. */
    Path scriptDirectory() {
        if (origin.equals("-") || origin.startsWith("builtin:")) {
            return Path.of("");
        }
        try {
            Path parent = Path.of(origin).toAbsolutePath().getParent();
            return parent == null ? Path.of("") : parent;
        } catch (InvalidPathException e) {
            return Path.of("");
        }
    }

    HwException error(int line, String message) {
        return new HwException(Cause.BAD_INPUT, printable(origin + ":" + line + ": " + message));
    }

    /** Terminal controls from the script escaped ({@link TerminalText}): a message stays one safe line. */
    public static String printable(String s) {
        return TerminalText.quote(s);
    }

    /** One non-empty line, split into words. */
    private final class Line {
        final int n;
        final String source;
        final String[] words;

        Line(int n, String source) {
            this.n = n;
            this.source = source;
            this.words = source.split("\\s+");
        }

        HwException error(String message) {
            return ScriptParser.this.error(n, message);
        }

        Command command() {
            String verb = words[0].toLowerCase(Locale.ROOT);
            return switch (verb) {
                case "profile" -> {
                    arity(1, "profile NAME|FILE");
                    yield new Command.UseProfile(n, source, words[1]);
                }
                case "cpus" -> {
                    arity(1, "cpus N");
                    long count = number(words[1]);
                    if (count < 1 || count > 4096) {
                        throw error("cpus " + words[1] + ": must be 1..4096");
                    }
                    yield new Command.UseCpus(n, source, (int) count);
                }
                case "cpu" -> {
                    arity(1, "cpu N");
                    long cpu = number(words[1]);
                    if (cpu < 0 || cpu > Integer.MAX_VALUE) {
                        throw error("cpu " + words[1] + ": not a CPU number");
                    }
                    yield new Command.SelectCpu(n, source, (int) cpu);
                }
                case "wrmsr" -> {
                    arity(2, "wrmsr REG[.FIELD] VALUE");
                    yield wrmsr(1);
                }
                case "rdmsr" -> {
                    arity(1, "rdmsr REG");
                    yield rdmsr(1);
                }
                case "mem" -> mem();
                case "branch" -> branch();
                case "branches" -> branches();
                case "instructions" -> {
                    if (words.length < 2) {
                        throw error("usage: instructions N [cpl=N]");
                    }
                    Options o = options(2, "cpl");
                    yield new Command.Instructions(n, source, count(words[1]), o.cpl());
                }
                case "cycles" -> {
                    arity(1, "cycles N");
                    yield new Command.Cycles(n, source, count(words[1]));
                }
                case "workload" -> {
                    if (words.length < 2) {
                        throw error("usage: workload loop|calltree|trace ...");
                    }
                    String spec = source.strip().substring(words[0].length()).strip();
                    try {
                        yield new Command.RunWorkload(n, source, Workloads.parse(spec, scriptDirectory()));
                    } catch (HwException e) {
                        throw error(e.getMessage());
                    }
                }
                case "lbr", "bts", "pmi" -> {
                    arity(0, verb);
                    yield new Command.Show(n, source, Command.Report.valueOf(verb.toUpperCase(Locale.ROOT)));
                }
                case "handler" -> {
                    arity(1, "handler builtin|none");
                    yield new Command.SetHandler(n, source, choice(words[1], "builtin", "none", "handler"));
                }
                case "single-step" -> {
                    arity(1, "single-step on|off");
                    yield new Command.SingleStep(n, source, choice(words[1], "on", "off", "single-step"));
                }
                case "platform" -> {
                    arity(2, "platform REG[.FIELD] VALUE");
                    RegisterRef r = register(words[1], true);
                    long v = number(words[2]);
                    checkFieldValue(r, v);
                    yield new Command.PlatformValue(n, source, r, v);
                }
                case "expect" -> expect();
                case "expect-fault" -> expectFault();
                default -> throw error("unknown command '" + words[0] + "' (" + COMMANDS + ")");
            };
        }

        void arity(int args, String usage) {
            if (words.length != args + 1) {
                throw error("usage: " + usage);
            }
        }

        boolean choice(String word, String yes, String no, String what) {
            String w = word.toLowerCase(Locale.ROOT);
            if (w.equals(yes)) {
                return true;
            }
            if (w.equals(no)) {
                return false;
            }
            throw error(what + " takes " + yes + " or " + no + ", not '" + word + "'");
        }

        Command.Wrmsr wrmsr(int at) {
            RegisterRef r = register(words[at], true);
            long v = number(words[at + 1]);
            checkFieldValue(r, v);
            return new Command.Wrmsr(n, source, r, v);
        }

        Command.Rdmsr rdmsr(int at) {
            RegisterRef r = register(words[at], false);
            return new Command.Rdmsr(n, source, r);
        }

        Command mem() {
            if (words.length >= 2 && words[1].equalsIgnoreCase("write64")) {
                if (words.length != 4) {
                    throw error("usage: mem write64 ADDR VALUE");
                }
                return new Command.MemWrite(n, source, number(words[2]), number(words[3]));
            }
            if (words.length >= 2 && words[1].equalsIgnoreCase("read64")) {
                if (words.length != 3) {
                    throw error("usage: mem read64 ADDR");
                }
                return new Command.MemRead(n, source, number(words[2]));
            }
            throw error("usage: mem write64 ADDR VALUE | mem read64 ADDR");
        }

        Command branch() {
            if (words.length < 3) {
                throw error("usage: branch FROM TO [cpl=N] [type=T] [mispredict]");
            }
            long from = number(words[1]);
            long to = number(words[2]);
            Options o = options(3, "cpl", "type", "mispredict");
            return new Command.Branch(n, source, from, to, o.cpl(), o.type(), o.mispredict);
        }

        Command branches() {
            if (words.length < 2) {
                throw error("usage: branches N [from=A] [to=B] [cpl=N] [type=T] [mispredict]");
            }
            long count = count(words[1]);
            if (count > MAX_BURST) {
                throw error("branches " + words[1] + ": at most " + MAX_BURST + " a line");
            }
            Options o = options(2, "from", "to", "cpl", "type", "mispredict");
            int cpl = o.cpl();
            long from = o.values.containsKey("from") ? o.values.get("from") : cpl == 0 ? KERNEL_FROM : USER_FROM;
            long to = o.values.containsKey("to") ? o.values.get("to") : cpl == 0 ? KERNEL_TO : USER_TO;
            return new Command.Branches(n, source, count, from, to, cpl, o.type(), o.mispredict);
        }

        Command expect() {
            if (words.length == 3 && words[1].equalsIgnoreCase("diagnostic")) {
                String code = words[2];
                if (!DIAGNOSTIC.matcher(code).matches()) {
                    throw error("diagnostic code '" + code + "' is not of the form bts-buffer-too-small");
                }
                return new Command.ExpectDiagnostic(n, source, code);
            }
            if (words.length != 3) {
                throw error("usage: expect REG[.FIELD]|mem64:ADDR|COUNT VALUE, or expect diagnostic CODE");
            }
            String what = words[1];
            long value = number(words[2]);
            Optional<Count> count = Count.byName(what);
            if (count.isPresent()) {
                return new Command.Expect(n, source, new Probe.Counted(count.get()), value);
            }
            if (what.regionMatches(true, 0, "mem64:", 0, 6)) {
                return new Command.Expect(n, source, new Probe.Memory(number(what.substring(6))), value);
            }
            RegisterRef r = register(what, true);
            checkFieldValue(r, value);
            return new Command.Expect(n, source, new Probe.Register(r), value);
        }

        Command expectFault() {
            if (words.length >= 2 && words[1].equalsIgnoreCase("wrmsr") && words.length == 4) {
                return new Command.ExpectFault(n, source, wrmsr(2));
            }
            if (words.length >= 2 && words[1].equalsIgnoreCase("rdmsr") && words.length == 3) {
                return new Command.ExpectFault(n, source, rdmsr(2));
            }
            throw error("usage: expect-fault wrmsr REG[.FIELD] VALUE | expect-fault rdmsr REG");
        }

        long number(String w) {
            if (HEX.matcher(w).matches()) {
                return Long.parseUnsignedLong(w.substring(2), 16);
            }
            if (DEC.matcher(w).matches()) {
                try {
                    return Long.parseUnsignedLong(w);
                } catch (NumberFormatException e) {
                    throw error("'" + w + "' does not fit in 64 bits");
                }
            }
            throw error("'" + w + "' is not a number (decimal or 0x hex, unsigned 64-bit)");
        }

        /** A count of things to retire: at most Long.MAX_VALUE. */
        long count(String w) {
            long c = number(w);
            if (c < 0) {
                throw error("count " + w + " is too large (at most " + Long.MAX_VALUE + ")");
            }
            return c;
        }

        RegisterRef register(String w, boolean fieldAllowed) {
            int dot = w.indexOf('.');
            String reg = dot < 0 ? w : w.substring(0, dot);
            String field = dot < 0 ? null : w.substring(dot + 1);
            if (field != null && !fieldAllowed) {
                throw error("'" + w + "': a field cannot be used here, name the whole register");
            }
            if (field != null && field.isEmpty()) {
                throw error("'" + w + "': no field name after '.'");
            }
            if (HEX.matcher(reg).matches() || DEC.matcher(reg).matches()) {
                long address = number(reg);
                if (field != null) {
                    throw error("'" + w + "': a field needs the register's name, not its number");
                }
                if (address > 0xFFFF_FFFFL) {
                    throw error("MSR number " + reg + " is not 32-bit");
                }
                return new RegisterRef(null, address, null);
            }
            Optional<MsrDef> def = MsrCatalog.byName(reg);
            if (def.isEmpty()) {
                throw error("unknown register '" + reg + "' (not in the MSR catalog; see 'hwtool msr list')");
            }
            if (field != null && def.get().field(field).isEmpty()) {
                throw error(def.get().name() + " has no field '" + field + "'");
            }
            return new RegisterRef(reg, def.get().address(), field);
        }

        /** A field value must fit the field's declared width. */
        void checkFieldValue(RegisterRef r, long v) {
            if (r.field() == null) {
                return;
            }
            MsrDef def = MsrCatalog.byName(r.name()).orElseThrow();
            MsrField f = def.field(r.field()).orElseThrow();
            if (f.bits() < 64 && v >>> f.bits() != 0) {
                throw error("value 0x" + Long.toHexString(v) + " does not fit " + def.name() + "." + f.name()
                        + " " + f.bitsText() + " (max 0x" + Long.toHexString((1L << f.bits()) - 1) + ")");
            }
        }

        Options options(int from, String... allowed) {
            Options o = new Options();
            List<String> names = List.of(allowed);
            for (int i = from; i < words.length; i++) {
                String w = words[i];
                int eq = w.indexOf('=');
                String key = (eq < 0 ? w : w.substring(0, eq)).toLowerCase(Locale.ROOT);
                if (!names.contains(key) || (key.equals("mispredict") != (eq < 0))) {
                    throw error("unexpected '" + w + "' (options here: " + optionList(names) + ")");
                }
                if (o.given.contains(key)) {
                    throw error("option " + key + " given twice");
                }
                o.given.add(key);
                String value = eq < 0 ? "" : w.substring(eq + 1);
                switch (key) {
                    case "mispredict" -> o.mispredict = true;
                    case "type" -> o.type = BranchType.byName(value).orElseThrow(() -> error(
                            "unknown branch type '" + value + "' (" + BranchType.scriptNames() + ")"));
                    case "cpl" -> {
                        long cpl = number(value);
                        if (cpl < 0 || cpl > 3) {
                            throw error("cpl=" + value + ": must be 0..3");
                        }
                        o.cpl = (int) cpl;
                    }
                    default -> o.values.put(key, number(value));
                }
            }
            return o;
        }

        private static String optionList(List<String> names) {
            List<String> out = new ArrayList<>();
            for (String s : names) {
                out.add(s.equals("mispredict") ? s : s + "=");
            }
            return String.join(" ", out);
        }
    }

    private static final class Options {
        final List<String> given = new ArrayList<>();
        final Map<String, Long> values = new HashMap<>();
        int cpl = 3;
        BranchType type = BranchType.JCC;
        boolean mispredict;

        int cpl() {
            return cpl;
        }

        BranchType type() {
            return type;
        }
    }
}
