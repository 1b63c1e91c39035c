package dev.hwtool.api;

import java.util.Optional;

/**
 * A failure with a named cause and, where one exists, the remedy a person can apply.
 * The message is one line, fit to print after "hwtool: ".
 */
public class HwException extends RuntimeException {

    private final Cause cause;
    private final String remedy;

    public HwException(Cause cause, String message, String remedy) {
        super(message);
        this.cause = cause;
        this.remedy = remedy;
    }

    public HwException(Cause cause, String message) {
        this(cause, message, null);
    }

    public HwException(Cause cause, String message, String remedy, Throwable underlying) {
        super(message, underlying);
        this.cause = cause;
        this.remedy = remedy;
    }

    public Cause reason() {
        return cause;
    }

    public Optional<String> remedy() {
        return Optional.ofNullable(remedy);
    }
}
