package dev.hwtool.bind;

/**
 * A libc call failed with {@code errno}. Carries the call and its subject (a path, a CPU) so
 * that the layer above can map it to a cause; the bindings themselves decide no policy.
 */
public final class ErrnoException extends RuntimeException {

    private final String call;
    private final int errno;

    public ErrnoException(String call, int errno, String subject) {
        super(call + (subject == null ? "" : "(" + subject + ")") + ": " + Errno.describe(errno));
        this.call = call;
        this.errno = errno;
    }

    public String call() {
        return call;
    }

    public int errno() {
        return errno;
    }
}
