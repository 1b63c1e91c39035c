package dev.hwtool.arch.perf.abi;

/**
 * Bytes that are not a well-formed perf record stream for the given format: a header size below 8
 * or past the end of the data, a field or array that does not fit in its record. The only
 * exception the parsers throw on bad input; {@link #offset()} is where the bad record starts.
 */
public final class PerfParseException extends RuntimeException {

    private final long offset;

    public PerfParseException(long offset, String message) {
        super("perf record at byte " + offset + ": " + message);
        this.offset = offset;
    }

    public long offset() {
        return offset;
    }
}
