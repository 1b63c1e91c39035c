package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import dev.hwtool.io.BoundedText;

import java.io.InputStream;
import java.util.Optional;

/**
 * Reads a branch trace, streaming: one taken branch a line,
 * <pre>
 *   FROM TO [TYPE] [cpl=N] [mispredict]     # comment
 * </pre>
 * FROM and TO are unsigned 64-bit numbers, {@code 0x} hex or decimal. The optional tokens
 * come in any order, each at most once: TYPE is a {@link BranchType} name ({@code
 * jcc|call|ind-call|jmp|ind-jmp|ret|far|int}, or the enum name, any case), <b>jcc when
 * absent</b> — the most common taken branch; {@code cpl=N} is 0..3, <b>3 when absent</b>
 * (user code); {@code mispredict} marks the branch mispredicted. Tokens are separated by
 * spaces or tabs; {@code #} starts a comment; blank lines are skipped. The input is UTF-8 text,
 * read as {@link BoundedText#lines} reads it: lines end with LF, CRLF or CR and hold at most
 * {@link BoundedText#MAX_LINE_BYTES} bytes, and a byte that is not text ends the run at once,
 * so {@code /dev/zero} or a binary file fails on its first byte. The trace is streamed: its
 * length has no bound, and memory stays the same whatever it is.
 *
 * <p>Lines are checked one at a time as they are read, so a bad line is found after the sink
 * has retired the branches before it: the failure is an {@code HwException(BAD_INPUT)} reading
 * "SOURCE:LINE: what is wrong (token); stopped after N branches" (the suffix only when N &gt; 0).
 * {@link TraceWorkload} runs {@link #check} first on regular files, so for them nothing is
 * retired from a bad trace. No other exception escapes, except the sink's own.
 */
public final class TraceParser {

    private static final String FORM = "FROM TO [TYPE] [cpl=N] [mispredict]";

    private final String source;
    private long lineNo;
    private long retired;
    private long from;
    private long to;
    private BranchType type;
    private int cpl;
    private boolean mispredicted;

    /** @param source how messages name the input, e.g. the file name or "&lt;stdin&gt;" */
    public TraceParser(String source) {
        this.source = source;
    }

    /** Retires every branch of {@code in} (not closed) into {@code sink}, in order; returns how many. */
    public long run(InputStream in, Retirement sink) {
        return read(in, sink);
    }

    /** Checks every line of {@code in} (not closed) without retiring anything; returns the number of branches. */
    public long check(InputStream in) {
        return read(in, null);
    }

    private long read(InputStream in, Retirement sink) {
        lineNo = 0;
        retired = 0;
        long branches = 0;
        BoundedText.Lines lines = BoundedText.lines(in, source);
        try {
            for (String line = lines.next(); line != null; line = lines.next()) {
                lineNo = lines.lineNumber();
                if (parse(line)) {
                    branches++;
                    if (sink != null) {
                        sink.branch(from, to, type, cpl, mispredicted);
                        retired++;
                    }
                }
            }
        } catch (HwException e) {
            if (retired > 0 && e.cause() == Cause.BAD_INPUT && !e.getMessage().contains("; stopped after ")) {
                throw new HwException(Cause.BAD_INPUT, e.getMessage() + "; stopped after " + retired + " branches", null, e);
            }
            throw e;
        }
        return branches;
    }

    /** Fills the fields from {@code line}; false for a blank or comment line. */
    private boolean parse(String line) {
        int hash = line.indexOf('#');
        String text = hash < 0 ? line : line.substring(0, hash);
        int pos = skipBlanks(text, 0);
        if (pos == text.length()) {
            return false;
        }
        int end = tokenEnd(text, pos);
        from = address("FROM", text.substring(pos, end));
        pos = skipBlanks(text, end);
        if (pos == text.length()) {
            throw bad("missing TO address, expected " + FORM);
        }
        end = tokenEnd(text, pos);
        to = address("TO", text.substring(pos, end));
        type = null;
        cpl = -1;
        mispredicted = false;
        boolean sawMispredict = false;
        for (pos = skipBlanks(text, end); pos < text.length(); pos = skipBlanks(text, end)) {
            end = tokenEnd(text, pos);
            String token = text.substring(pos, end);
            if (token.regionMatches(true, 0, "cpl=", 0, 4)) {
                if (cpl >= 0) {
                    throw bad("repeated cpl (" + Lexical.show(token) + ")");
                }
                cpl = privilegeLevel(token);
            } else if (token.equalsIgnoreCase("mispredict")) {
                if (sawMispredict) {
                    throw bad("repeated mispredict (" + Lexical.show(token) + ")");
                }
                sawMispredict = true;
                mispredicted = true;
            } else {
                Optional<BranchType> t = BranchType.byName(token);
                if (t.isEmpty()) {
                    throw bad("unknown token (" + Lexical.show(token) + "), expected a type "
                            + BranchType.scriptNames() + ", cpl=N or mispredict");
                }
                if (type != null) {
                    throw bad("repeated branch type (" + Lexical.show(token) + ")");
                }
                type = t.get();
            }
        }
        if (type == null) {
            type = BranchType.JCC;
        }
        if (cpl < 0) {
            cpl = 3;
        }
        return true;
    }

    private long address(String which, String token) {
        try {
            return Lexical.parseUnsigned(token);
        } catch (NumberFormatException e) {
            throw bad("bad " + which + " address (" + Lexical.show(token) + "), expected " + Lexical.NUMBER_FORM);
        }
    }

    private int privilegeLevel(String token) {
        long v;
        try {
            v = Lexical.parseUnsigned(token.substring(4));
        } catch (NumberFormatException e) {
            v = -1;
        }
        if (v < 0 || v > 3) {
            throw bad("bad cpl (" + Lexical.show(token) + "), expected cpl=0..3");
        }
        return (int) v;
    }

    private HwException bad(String what) {
        String after = retired > 0 ? "; stopped after " + retired + " branches" : "";
        return new HwException(Cause.BAD_INPUT, Lexical.escape(source) + ":" + lineNo + ": " + what + after);
    }

    private static boolean blank(char c) {
        return c == ' ' || c == '\t';
    }

    private static int skipBlanks(String s, int i) {
        while (i < s.length() && blank(s.charAt(i))) {
            i++;
        }
        return i;
    }

    private static int tokenEnd(String s, int i) {
        while (i < s.length() && !blank(s.charAt(i))) {
            i++;
        }
        return i;
    }
}
