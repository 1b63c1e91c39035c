package dev.hwtool.cli;

import dev.hwtool.api.HwException;
import dev.hwtool.bind.Errno;
import dev.hwtool.linux.MsrAccessException;

/**
 * The stderr line and exit code msr-tools 1.3 gives for a failed MSR access (rdmsr.c/wrmsr.c):
 * ENXIO on open → "No CPU N", 2; EIO on open → "CPU N doesn't support MSRs", 3; EIO on
 * pread → "CPU N cannot read MSR 0x%08x", 4; EIO on pwrite → "CPU N cannot set MSR 0x%08x to
 * 0x%016x", 4; any other errno → perror, 127. The simulator reports causes, not errnos; each
 * cause maps to the errno the kernel's msr driver gives for it (arch/x86/kernel/msr.c, msr_open/msr_read/msr_write; msr(4)).
 */
final class MsrToolsErrors {

    /** Exit code of msr-tools for usage errors and for any errno it has no message for. */
    static final int OTHER = 127;

    private MsrToolsErrors() {
    }

    enum Op { READ, WRITE }

    /** The message (without the "rdmsr: " prefix), the exit code, and whether -a should stop. */
    record Failure(String message, int exit, boolean global) {
    }

    static Failure of(HwException e, Op op, int cpu, long msr, long value) {
        if (e instanceof MsrAccessException m) {
            return fromErrno(m, cpu, msr, value);
        }
        return switch (e.cause()) {
            case NO_SUCH_CPU -> new Failure("No CPU " + cpu, 2, false);
            // msr_open: EIO when the CPU lacks X86_FEATURE_MSR
            case UNSUPPORTED -> new Failure("CPU " + cpu + " doesn't support MSRs", 3, false);
            case REGISTER_FAULT -> op == Op.READ
                    ? new Failure(String.format("CPU %d cannot read MSR 0x%08x", cpu, msr), 4, false)
                    : new Failure(String.format("CPU %d cannot set MSR 0x%08x to 0x%016x", cpu, msr, value), 4, false);
            // open(2) of a missing node, a 0600 node, or msr_open's CAP_SYS_RAWIO check
            case DRIVER_NOT_LOADED -> new Failure("open: No such file or directory", OTHER, true);
            case PERMISSION_DENIED -> new Failure("open: Permission denied", OTHER, true);
            case MISSING_CAPABILITY -> new Failure("open: Operation not permitted", OTHER, true);
            // msr_write: lockdown and msr.allow_writes=off are both EPERM from pwrite
            case LOCKDOWN, WRITES_DISABLED -> new Failure("pwrite: Operation not permitted", OTHER, true);
            default -> new Failure(e.getMessage(), OTHER, true);
        };
    }

    /** The hardware backend kept the errno and the call: answer exactly as rdmsr.c/wrmsr.c do. */
    private static Failure fromErrno(MsrAccessException m, int cpu, long msr, long value) {
        int errno = m.errno();
        return switch (m.operation()) {
            case OPEN -> errno == Errno.ENXIO ? new Failure("No CPU " + cpu, 2, false)
                    : errno == Errno.EIO ? new Failure("CPU " + cpu + " doesn't support MSRs", 3, false)
                    : new Failure("open: " + m.strerror(), OTHER, true);
            case PREAD -> errno == Errno.EIO
                    ? new Failure(String.format("CPU %d cannot read MSR 0x%08x", cpu, msr), 4, false)
                    : new Failure("pread: " + m.strerror(), OTHER, true);
            case PWRITE -> errno == Errno.EIO
                    ? new Failure(String.format("CPU %d cannot set MSR 0x%08x to 0x%016x", cpu, msr, value), 4, false)
                    : new Failure("pwrite: " + m.strerror(), OTHER, true);
        };
    }
}
