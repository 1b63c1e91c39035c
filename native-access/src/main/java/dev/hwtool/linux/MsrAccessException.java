package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.Errno;

import java.nio.file.Path;
import java.util.Objects;

/**
 * A failed system call on {@code /dev/cpu/N/msr}, with the errno the kernel returned kept next to
 * the {@link Cause} it was mapped to. The cause and message are for people; the errno and call are
 * for tools that must answer exactly as msr-tools does ({@code rdmsr: open: No such file or
 * directory}, exit 2 for ENXIO, 3 for EIO on open, 4 for EIO on pread/pwrite).
 */
public final class MsrAccessException extends HwException {

    /** The system call that failed. */
    public enum Operation {
        OPEN("open"), PREAD("pread"), PWRITE("pwrite");

        private final String call;

        Operation(String call) {
            this.call = call;
        }

        /** The call's name as perror(3) callers print it: "open", "pread", "pwrite". */
        public String call() {
            return call;
        }
    }

    private final Operation operation;
    private final int errno;
    private final int cpu;
    private final int msr;
    private final Path node;

    public MsrAccessException(Cause cause, String message, String remedy, Operation operation, int errno, int cpu,
                              int msr, Path node, Throwable underlying) {
        super(cause, message, remedy, underlying);
        this.operation = Objects.requireNonNull(operation, "operation");
        this.errno = errno;
        this.cpu = cpu;
        this.msr = msr;
        this.node = Objects.requireNonNull(node, "node");
    }

    public Operation operation() {
        return operation;
    }

    /** The errno the call left, e.g. {@link Errno#ENOENT} for a missing node. */
    public int errno() {
        return errno;
    }

    public int cpu() {
        return cpu;
    }

    /** The 32-bit MSR index (unsigned). */
    public int msr() {
        return msr;
    }

    /** The device node the call was made on, e.g. /dev/cpu/0/msr. */
    public Path node() {
        return node;
    }

    /**
     * glibc's strerror text for {@link #errno()}, e.g. "No such file or directory", as perror(3)
     * prints it; "Unknown error N" for a number Linux does not define, as glibc says.
     */
    public String strerror() {
        return Errno.strerror(errno);
    }
}
