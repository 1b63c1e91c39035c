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

    /**
     * What everything taken from a closed {@link Platform} throws ({@code what}: "MsrAccess",
     * "Counters", ...): the platform's resources are gone, so the call cannot be served.
     */
    public static HwException closed(String what, String platform) {
        return new HwException(Cause.UNSUPPORTED, "this " + what + " belongs to a closed platform (" + platform
                + "): nothing done", "take it from an open platform: Platform.open() or SimulatedPlatform.of(...) again");
    }

    /** Why it failed, as a {@link Cause}: its exit code and its kind (never null). */
    public Cause cause() {
        return cause;
    }

    public Optional<String> remedy() {
        return Optional.ofNullable(remedy);
    }
}
