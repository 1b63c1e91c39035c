package dev.hwtool.arch.cpuid;

/**
 * A CPUID dump that cannot be read: truncated or garbled leaf lines, bad hex, an unknown
 * layout, no leaves at all. The message is one line, {@code origin:line: what is wrong}, or
 * {@code origin: what is wrong} when the problem is not on one line ({@link #line()} is 0). It
 * quotes text from the dump as it is: quote the message for a terminal before printing it
 * ({@code dev.hwtool.io.TerminalText}; {@code DumpCpuidSource.load} does). {@code arch} depends
 * on nothing, so it does not quote itself.
 */
public class CpuidDumpException extends RuntimeException {

    private final String origin;
    private final int line;
    private final String problem;

    public CpuidDumpException(String origin, int line, String problem) {
        super(line > 0 ? origin + ":" + line + ": " + problem : origin + ": " + problem);
        this.origin = origin;
        this.line = line;
        this.problem = problem;
    }

    /** Where the dump came from, as given to the parser. */
    public String origin() {
        return origin;
    }

    /** The 1-based line the problem is on, or 0 if it is not on one line. */
    public int line() {
        return line;
    }

    /** What is wrong, without the origin and line. */
    public String problem() {
        return problem;
    }
}
