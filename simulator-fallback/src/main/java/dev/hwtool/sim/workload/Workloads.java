package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * The workload spec that scenario scripts and the CLI share ({@link #grammar()}):
 * <pre>
 *   loop     [seed=N] [iterations=N] [body=N] [base=ADDR] [cpl=N]
 *   calltree [seed=N] [depth=N] [fanout=N] [calls=N] [base=ADDR] [cpl=N]
 *   trace    FILE
 * </pre>
 * Words are separated by spaces or tabs; kinds and keys are lower case; each key at most once,
 * in any order; numbers are unsigned 64-bit, {@code 0x} hex or decimal. Ranges and defaults are
 * the records' ({@link LoopWorkload}, {@link CallTreeWorkload}). FILE is one word, "-" for
 * standard input, relative to the base directory given; it must exist when the spec is parsed.
 * Every error is an {@code HwException(BAD_INPUT)} of one line naming the word at fault.
 */
public final class Workloads {

    private record Kind(String name, List<Param> params, Function<long[], Workload> make) {
    }

    private static final List<Kind> KINDS = List.of(
            new Kind(LoopWorkload.KIND, LoopWorkload.PARAMS,
                    v -> new LoopWorkload(v[0], v[1], (int) v[2], v[3], (int) v[4])),
            new Kind(CallTreeWorkload.KIND, CallTreeWorkload.PARAMS,
                    v -> new CallTreeWorkload(v[0], (int) v[1], (int) v[2], v[3], v[4], (int) v[5])));

    private static final String KIND_NAMES = LoopWorkload.KIND + "|" + CallTreeWorkload.KIND + "|" + TraceWorkload.KIND;

    private Workloads() {
    }

    /** The workload {@code spec} names; a trace FILE is resolved against {@code baseDir}. */
    public static Workload parse(String spec, Path baseDir) {
        if (spec == null) {
            throw bad("no workload spec, expected " + KIND_NAMES);
        }
        List<String> words = words(spec);
        if (words.isEmpty()) {
            throw bad("empty workload spec, expected " + KIND_NAMES);
        }
        String kind = words.getFirst();
        List<String> rest = words.subList(1, words.size());
        if (kind.equals(TraceWorkload.KIND)) {
            return trace(rest, baseDir);
        }
        for (Kind k : KINDS) {
            if (k.name.equals(kind)) {
                return k.make.apply(values(k, rest));
            }
        }
        throw bad("unknown workload (" + Lexical.show(kind) + "), expected " + KIND_NAMES);
    }

    /** The spec grammar with ranges and defaults, for help texts (several lines). */
    public static String grammar() {
        StringBuilder b = new StringBuilder();
        for (Kind k : KINDS) {
            b.append(k.name);
            for (Param p : k.params) {
                b.append(" [").append(p.name()).append('=').append(p.hex() ? "ADDR" : "N").append(']');
            }
            b.append('\n');
            for (Param p : k.params) {
                b.append("    ").append(p.name()).append(' ').append(p.range())
                        .append(" (default ").append(p.format(p.dflt())).append(")\n");
            }
        }
        b.append(TraceWorkload.KIND).append(" FILE\n")
                .append("    FILE: one taken branch a line, FROM TO [TYPE] [cpl=N] [mispredict], # comments;\n")
                .append("    TYPE ").append(BranchType.scriptNames())
                .append(" (default jcc), cpl 0..3 (default 3); \"-\" reads standard input\n")
                .append("numbers: 0x-hex or decimal");
        return b.toString();
    }

    private static long[] values(Kind k, List<String> words) {
        long[] v = new long[k.params.size()];
        boolean[] seen = new boolean[v.length];
        for (int i = 0; i < v.length; i++) {
            v[i] = k.params.get(i).dflt();
        }
        for (String w : words) {
            int eq = w.indexOf('=');
            if (eq < 0) {
                throw bad(k.name + ": expected key=value (" + Lexical.show(w) + ")");
            }
            String key = w.substring(0, eq);
            int i = indexOf(k.params, key);
            if (i < 0) {
                throw bad(k.name + ": unknown key (" + Lexical.show(key) + "), expected " + keyNames(k.params));
            }
            if (seen[i]) {
                throw bad(k.name + ": repeated key (" + Lexical.show(key) + ")");
            }
            seen[i] = true;
            Param p = k.params.get(i);
            String text = w.substring(eq + 1);
            long n;
            try {
                n = Lexical.parseUnsigned(text);
            } catch (NumberFormatException e) {
                throw bad(k.name + ": bad number for " + p.name() + " (" + Lexical.show(text) + "), expected "
                        + p.range() + ", " + Lexical.NUMBER_FORM);
            }
            // before the record narrows ints: body=0x100000008 must not become 8
            v[i] = p.check(k.name, n);
        }
        return v;
    }

    private static Workload trace(List<String> words, Path baseDir) {
        if (words.size() != 1) {
            throw bad(TraceWorkload.KIND + ": expected one FILE (\"-\" for standard input), got " + words.size()
                    + " words");
        }
        String name = words.getFirst();
        if (name.equals(TraceWorkload.STDIN)) {
            return TraceWorkload.stdin();
        }
        Path file;
        try {
            file = baseDir.resolve(name);
        } catch (InvalidPathException e) {
            throw bad(TraceWorkload.KIND + ": bad file name (" + Lexical.show(name) + ")");
        }
        if (!Files.exists(file)) {
            throw bad(TraceWorkload.KIND + ": no such file (" + Lexical.escape(file.toString()) + ")");
        }
        if (Files.isDirectory(file)) {
            throw bad(TraceWorkload.KIND + ": is a directory (" + Lexical.escape(file.toString()) + ")");
        }
        return new TraceWorkload(file);
    }

    private static int indexOf(List<Param> params, String key) {
        for (int i = 0; i < params.size(); i++) {
            if (params.get(i).name().equals(key)) {
                return i;
            }
        }
        return -1;
    }

    private static String keyNames(List<Param> params) {
        StringBuilder b = new StringBuilder();
        for (Param p : params) {
            b.append(b.isEmpty() ? "" : "|").append(p.name());
        }
        return b.toString();
    }

    /**
     * The spec's words: split at blanks, where {@code '...'} quotes blanks (no escapes inside, as
     * in a POSIX shell) and {@code \c} outside quotes is the character c. So a word list that a
     * command line gave as argv, blanks in a trace file name included, comes back whole from
     * {@link #spec(List)}.
     */
    static List<String> words(String spec) {
        List<String> words = new ArrayList<>();
        int i = 0;
        while (i < spec.length()) {
            while (i < spec.length() && blank(spec.charAt(i))) {
                i++;
            }
            if (i == spec.length()) {
                break;
            }
            StringBuilder w = new StringBuilder();
            while (i < spec.length() && !blank(spec.charAt(i))) {
                char c = spec.charAt(i++);
                if (c == '\\' && i < spec.length()) {
                    w.append(spec.charAt(i++));
                } else if (c == '\'') {
                    int end = spec.indexOf('\'', i);
                    if (end < 0) {
                        throw bad("unterminated quote in the workload spec (" + Lexical.show(spec) + ")");
                    }
                    w.append(spec, i, end);
                    i = end + 1;
                } else {
                    w.append(c);
                }
            }
            words.add(w.toString());
        }
        return words;
    }

    /**
     * The spec that {@link #parse} splits back into exactly {@code words}: argv as given after
     * {@code --}, a word with blanks, quotes or backslashes quoted ({@code 'a b'}, {@code 'it'\''s'}).
     */
    public static String spec(List<String> words) {
        StringBuilder b = new StringBuilder();
        for (String w : words) {
            if (!b.isEmpty()) {
                b.append(' ');
            }
            boolean plain = !w.isEmpty() && w.chars().noneMatch(c -> c == ' ' || c == '\t' || c == '\'' || c == '\\');
            b.append(plain ? w : "'" + w.replace("'", "'\\''") + "'");
        }
        return b.toString();
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    private static HwException bad(String message) {
        return new HwException(Cause.BAD_INPUT, message);
    }
}
