package dev.hwtool.bind;

/** The Linux x86-64 errno values hwtool tells apart (asm-generic/errno-base.h, errno.h). */
public final class Errno {
    public static final int EPERM = 1;
    public static final int ENOENT = 2;
    public static final int ESRCH = 3;
    public static final int EINTR = 4;
    public static final int EIO = 5;
    public static final int ENXIO = 6;
    public static final int E2BIG = 7;
    public static final int EBADF = 9;
    public static final int EAGAIN = 11;
    public static final int ENOMEM = 12;
    public static final int EACCES = 13;
    public static final int EFAULT = 14;
    public static final int EBUSY = 16;
    public static final int ENODEV = 19;
    public static final int EINVAL = 22;
    public static final int EMFILE = 24;
    public static final int ENOTTY = 25;
    public static final int ENOSPC = 28;
    public static final int ESPIPE = 29;
    public static final int ENOSYS = 38;
    public static final int EOVERFLOW = 75;
    public static final int EOPNOTSUPP = 95;

    private Errno() {
    }

    /** "ENOENT (No such file or directory)" — the symbolic name and glibc's strerror text. */
    public static String describe(int errno) {
        return switch (errno) {
            case EPERM -> "EPERM (Operation not permitted)";
            case ENOENT -> "ENOENT (No such file or directory)";
            case ESRCH -> "ESRCH (No such process)";
            case EINTR -> "EINTR (Interrupted system call)";
            case EIO -> "EIO (Input/output error)";
            case ENXIO -> "ENXIO (No such device or address)";
            case E2BIG -> "E2BIG (Argument list too long)";
            case EBADF -> "EBADF (Bad file descriptor)";
            case EAGAIN -> "EAGAIN (Resource temporarily unavailable)";
            case ENOMEM -> "ENOMEM (Cannot allocate memory)";
            case EACCES -> "EACCES (Permission denied)";
            case EFAULT -> "EFAULT (Bad address)";
            case EBUSY -> "EBUSY (Device or resource busy)";
            case ENODEV -> "ENODEV (No such device)";
            case EINVAL -> "EINVAL (Invalid argument)";
            case EMFILE -> "EMFILE (Too many open files)";
            case ENOSPC -> "ENOSPC (No space left on device)";
            case ESPIPE -> "ESPIPE (Illegal seek)";
            case EOVERFLOW -> "EOVERFLOW (Value too large for defined data type)";
            case ENOTTY -> "ENOTTY (Inappropriate ioctl for device)";
            case ENOSYS -> "ENOSYS (Function not implemented)";
            case EOPNOTSUPP -> "EOPNOTSUPP (Operation not supported)";
            default -> "errno " + errno;
        };
    }
}
