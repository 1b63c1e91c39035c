package dev.hwtool.bind;

/**
 * Linux x86-64 errno values (asm-generic/errno-base.h, errno.h): constants for those hwtool tells
 * apart, and every errno in words.
 */
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
    public static final int EROFS = 30;
    public static final int ENOSYS = 38;
    public static final int EOVERFLOW = 75;
    public static final int EOPNOTSUPP = 95;
    public static final int EDQUOT = 122;

    /** One more than the largest errno Linux x86-64 defines (EHWPOISON, 133). */
    private static final int LIMIT = 134;

    /**
     * Name and glibc strerror(3) text of every errno 1..133, in pairs; null for the two numbers
     * Linux leaves unused (41, 58). From the kernel's include/uapi/asm-generic/errno-base.h and
     * errno.h and glibc's sysdeps/gnu/errlist.h (C locale); ErrnoTest checks each against the
     * running libc's strerror.
     */
    private static final String[] TABLE = {
            "EPERM", "Operation not permitted", // 1
            "ENOENT", "No such file or directory", // 2
            "ESRCH", "No such process", // 3
            "EINTR", "Interrupted system call", // 4
            "EIO", "Input/output error", // 5
            "ENXIO", "No such device or address", // 6
            "E2BIG", "Argument list too long", // 7
            "ENOEXEC", "Exec format error", // 8
            "EBADF", "Bad file descriptor", // 9
            "ECHILD", "No child processes", // 10
            "EAGAIN", "Resource temporarily unavailable", // 11
            "ENOMEM", "Cannot allocate memory", // 12
            "EACCES", "Permission denied", // 13
            "EFAULT", "Bad address", // 14
            "ENOTBLK", "Block device required", // 15
            "EBUSY", "Device or resource busy", // 16
            "EEXIST", "File exists", // 17
            "EXDEV", "Invalid cross-device link", // 18
            "ENODEV", "No such device", // 19
            "ENOTDIR", "Not a directory", // 20
            "EISDIR", "Is a directory", // 21
            "EINVAL", "Invalid argument", // 22
            "ENFILE", "Too many open files in system", // 23
            "EMFILE", "Too many open files", // 24
            "ENOTTY", "Inappropriate ioctl for device", // 25
            "ETXTBSY", "Text file busy", // 26
            "EFBIG", "File too large", // 27
            "ENOSPC", "No space left on device", // 28
            "ESPIPE", "Illegal seek", // 29
            "EROFS", "Read-only file system", // 30
            "EMLINK", "Too many links", // 31
            "EPIPE", "Broken pipe", // 32
            "EDOM", "Numerical argument out of domain", // 33
            "ERANGE", "Numerical result out of range", // 34
            "EDEADLK", "Resource deadlock avoided", // 35
            "ENAMETOOLONG", "File name too long", // 36
            "ENOLCK", "No locks available", // 37
            "ENOSYS", "Function not implemented", // 38
            "ENOTEMPTY", "Directory not empty", // 39
            "ELOOP", "Too many levels of symbolic links", // 40
            null, // 41: unused
            "ENOMSG", "No message of desired type", // 42
            "EIDRM", "Identifier removed", // 43
            "ECHRNG", "Channel number out of range", // 44
            "EL2NSYNC", "Level 2 not synchronized", // 45
            "EL3HLT", "Level 3 halted", // 46
            "EL3RST", "Level 3 reset", // 47
            "ELNRNG", "Link number out of range", // 48
            "EUNATCH", "Protocol driver not attached", // 49
            "ENOCSI", "No CSI structure available", // 50
            "EL2HLT", "Level 2 halted", // 51
            "EBADE", "Invalid exchange", // 52
            "EBADR", "Invalid request descriptor", // 53
            "EXFULL", "Exchange full", // 54
            "ENOANO", "No anode", // 55
            "EBADRQC", "Invalid request code", // 56
            "EBADSLT", "Invalid slot", // 57
            null, // 58: unused
            "EBFONT", "Bad font file format", // 59
            "ENOSTR", "Device not a stream", // 60
            "ENODATA", "No data available", // 61
            "ETIME", "Timer expired", // 62
            "ENOSR", "Out of streams resources", // 63
            "ENONET", "Machine is not on the network", // 64
            "ENOPKG", "Package not installed", // 65
            "EREMOTE", "Object is remote", // 66
            "ENOLINK", "Link has been severed", // 67
            "EADV", "Advertise error", // 68
            "ESRMNT", "Srmount error", // 69
            "ECOMM", "Communication error on send", // 70
            "EPROTO", "Protocol error", // 71
            "EMULTIHOP", "Multihop attempted", // 72
            "EDOTDOT", "RFS specific error", // 73
            "EBADMSG", "Bad message", // 74
            "EOVERFLOW", "Value too large for defined data type", // 75
            "ENOTUNIQ", "Name not unique on network", // 76
            "EBADFD", "File descriptor in bad state", // 77
            "EREMCHG", "Remote address changed", // 78
            "ELIBACC", "Can not access a needed shared library", // 79
            "ELIBBAD", "Accessing a corrupted shared library", // 80
            "ELIBSCN", ".lib section in a.out corrupted", // 81
            "ELIBMAX", "Attempting to link in too many shared libraries", // 82
            "ELIBEXEC", "Cannot exec a shared library directly", // 83
            "EILSEQ", "Invalid or incomplete multibyte or wide character", // 84
            "ERESTART", "Interrupted system call should be restarted", // 85
            "ESTRPIPE", "Streams pipe error", // 86
            "EUSERS", "Too many users", // 87
            "ENOTSOCK", "Socket operation on non-socket", // 88
            "EDESTADDRREQ", "Destination address required", // 89
            "EMSGSIZE", "Message too long", // 90
            "EPROTOTYPE", "Protocol wrong type for socket", // 91
            "ENOPROTOOPT", "Protocol not available", // 92
            "EPROTONOSUPPORT", "Protocol not supported", // 93
            "ESOCKTNOSUPPORT", "Socket type not supported", // 94
            "EOPNOTSUPP", "Operation not supported", // 95
            "EPFNOSUPPORT", "Protocol family not supported", // 96
            "EAFNOSUPPORT", "Address family not supported by protocol", // 97
            "EADDRINUSE", "Address already in use", // 98
            "EADDRNOTAVAIL", "Cannot assign requested address", // 99
            "ENETDOWN", "Network is down", // 100
            "ENETUNREACH", "Network is unreachable", // 101
            "ENETRESET", "Network dropped connection on reset", // 102
            "ECONNABORTED", "Software caused connection abort", // 103
            "ECONNRESET", "Connection reset by peer", // 104
            "ENOBUFS", "No buffer space available", // 105
            "EISCONN", "Transport endpoint is already connected", // 106
            "ENOTCONN", "Transport endpoint is not connected", // 107
            "ESHUTDOWN", "Cannot send after transport endpoint shutdown", // 108
            "ETOOMANYREFS", "Too many references: cannot splice", // 109
            "ETIMEDOUT", "Connection timed out", // 110
            "ECONNREFUSED", "Connection refused", // 111
            "EHOSTDOWN", "Host is down", // 112
            "EHOSTUNREACH", "No route to host", // 113
            "EALREADY", "Operation already in progress", // 114
            "EINPROGRESS", "Operation now in progress", // 115
            "ESTALE", "Stale file handle", // 116
            "EUCLEAN", "Structure needs cleaning", // 117
            "ENOTNAM", "Not a XENIX named type file", // 118
            "ENAVAIL", "No XENIX semaphores available", // 119
            "EISNAM", "Is a named type file", // 120
            "EREMOTEIO", "Remote I/O error", // 121
            "EDQUOT", "Disk quota exceeded", // 122
            "ENOMEDIUM", "No medium found", // 123
            "EMEDIUMTYPE", "Wrong medium type", // 124
            "ECANCELED", "Operation canceled", // 125
            "ENOKEY", "Required key not available", // 126
            "EKEYEXPIRED", "Key has expired", // 127
            "EKEYREVOKED", "Key has been revoked", // 128
            "EKEYREJECTED", "Key was rejected by service", // 129
            "EOWNERDEAD", "Owner died", // 130
            "ENOTRECOVERABLE", "State not recoverable", // 131
            "ERFKILL", "Operation not possible due to RF-kill", // 132
            "EHWPOISON", "Memory page has hardware error", // 133
    };

    private static final String[] NAMES = new String[LIMIT];
    private static final String[] TEXTS = new String[LIMIT];

    static {
        int n = 1;
        for (int i = 0; i < TABLE.length; n++) {
            if (TABLE[i] == null) {
                i++;
                continue;
            }
            NAMES[n] = TABLE[i];
            TEXTS[n] = TABLE[i + 1];
            i += 2;
        }
        if (n != LIMIT) {
            throw new AssertionError("errno table ends at " + n);
        }
    }

    private Errno() {
    }

    /** The symbolic name, e.g. "EROFS"; "errno N" for a number Linux does not define. */
    public static String name(int errno) {
        return errno > 0 && errno < LIMIT && NAMES[errno] != null ? NAMES[errno] : "errno " + errno;
    }

    /**
     * glibc's strerror(3) text in the C locale, e.g. "Read-only file system", as perror(3)
     * prints it; "Unknown error N" for a number Linux does not define, as glibc says.
     */
    public static String strerror(int errno) {
        return errno > 0 && errno < LIMIT && TEXTS[errno] != null ? TEXTS[errno] : "Unknown error " + errno;
    }

    /** "EROFS (Read-only file system)": the symbolic name and glibc's strerror text. */
    public static String describe(int errno) {
        return name(errno) + " (" + strerror(errno) + ")";
    }

    /** EPIPE (asm-generic/errno-base.h). */
    private static final int EPIPE = 32;

    /**
     * Whether {@code reason} (from {@code dev.hwtool.io.IoErrors.reason}) is EPIPE's: a pipe whose reader went away.
     * The JDK's write errors carry strerror's text in the process's locale (libjava calls
     * setlocale(LC_ALL, "") when it reads the host's locale, java_props_md.c), so besides glibc's
     * C-locale "Broken pipe" the text is compared with libc's own strerror(EPIPE), asked only
     * here, on a failure.
     */
    public static boolean isBrokenPipe(String reason) {
        if (reason == null) {
            return false;
        }
        if (reason.equals(strerror(EPIPE))) {
            return true;
        }
        String local = LocalEpipe.TEXT;
        return local != null && reason.equals(local);
    }

    /** strerror(EPIPE) of the running libc, in this process's locale; null if it cannot be asked. */
    private static final class LocalEpipe {
        static final String TEXT = text();

        private static String text() {
            try {
                java.lang.foreign.Linker linker = java.lang.foreign.Linker.nativeLinker();
                java.lang.invoke.MethodHandle strerror = linker.downcallHandle(
                        linker.defaultLookup().find("strerror").orElseThrow(),
                        java.lang.foreign.FunctionDescriptor.of(java.lang.foreign.ValueLayout.ADDRESS,
                                java.lang.foreign.ValueLayout.JAVA_INT));
                java.lang.foreign.MemorySegment s = (java.lang.foreign.MemorySegment) strerror.invokeExact(EPIPE);
                return s.reinterpret(4096).getString(0);
            } catch (Throwable t) {
                return null; // no native access: the C-locale text alone
            }
        }
    }
}
