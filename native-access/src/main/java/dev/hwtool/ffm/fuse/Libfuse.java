package dev.hwtool.ffm.fuse;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.Errno;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static dev.hwtool.ffm.fuse.FuseAbi.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * The FFM binding of libfuse3's high-level API (libfuse 3.14, FUSE_USE_VERSION 31): a
 * {@code struct fuse_operations} whose getattr, readdir, open, read, write and release are upcall
 * stubs into a {@link FuseFilesystem}, every other member NULL (libfuse answers ENOSYS for those);
 * {@code fuse_new_31}, {@code fuse_mount}, {@code fuse_loop}, {@code fuse_exit} and
 * {@code fuse_destroy} as downcalls (the unmount is umount2(2) or fusermount3, see detach()). The library is looked up by its
 * soname, libfuse3.so.3 (Debian package libfuse3-3).
 *
 * <p>The single-threaded {@code fuse_loop} serves one request at a time, so the handlers need no
 * locking of their own against each other. libfuse's own messages (fuse_log.h) are captured
 * through {@code fuse_set_log_func} and formatted with vsnprintf(3), so a failing mount becomes
 * one line of ours instead of libfuse's text on standard error.
 */
@SuppressWarnings("restricted")
final class Libfuse {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final String SONAME = "libfuse3.so.3";
    private static final long PATH_MAX = 4096;

    private Libfuse() {
    }

    /** The library's symbols, looked up on first use. */
    private static final class Lib {
        static final SymbolLookup LOOKUP;
        static final Throwable MISSING;

        static {
            SymbolLookup l = null;
            Throwable missing = null;
            try {
                l = SymbolLookup.libraryLookup(SONAME, Arena.global());
            } catch (IllegalArgumentException e) {
                missing = e;
            }
            LOOKUP = l;
            MISSING = missing;
        }

        static MethodHandle fn(String name, FunctionDescriptor fd) {
            return LINKER.downcallHandle(LOOKUP.find(name).orElseThrow(
                    () -> new HwException(Cause.UNSUPPORTED, SONAME + " has no " + name + " (libfuse older than 3.1?)",
                            "install Debian's fuse3 and libfuse3-3 (3.14 or later)")), fd);
        }

        static final MethodHandle FUSE_NEW;
        static final MethodHandle FUSE_MOUNT;
        static final MethodHandle FUSE_LOOP;
        static final MethodHandle FUSE_EXIT;
                static final MethodHandle FUSE_DESTROY;
        static final MethodHandle FUSE_GET_CONTEXT;
        static final MethodHandle SET_LOG_FUNC;

        static {
            if (LOOKUP == null) {
                FUSE_NEW = FUSE_MOUNT = FUSE_LOOP = FUSE_EXIT = FUSE_DESTROY = FUSE_GET_CONTEXT = SET_LOG_FUNC = null;
            } else {
                // struct fuse *fuse_new_31(struct fuse_args *, const struct fuse_operations *, size_t, void *)
                FUSE_NEW = fn("fuse_new_31", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS));
                FUSE_MOUNT = fn("fuse_mount", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS));
                FUSE_LOOP = fn("fuse_loop", FunctionDescriptor.of(JAVA_INT, ADDRESS));
                FUSE_EXIT = fn("fuse_exit", FunctionDescriptor.ofVoid(ADDRESS));
                                FUSE_DESTROY = fn("fuse_destroy", FunctionDescriptor.ofVoid(ADDRESS));
                FUSE_GET_CONTEXT = fn("fuse_get_context", FunctionDescriptor.of(ADDRESS));
                SET_LOG_FUNC = fn("fuse_set_log_func", FunctionDescriptor.ofVoid(ADDRESS));
            }
        }
    }

    /** libc functions this binding needs besides libfuse. */
    private static final class Libc {
        static final SymbolLookup C = LINKER.defaultLookup();
        static final MethodHandle GETEUID = LINKER.downcallHandle(C.find("geteuid").orElseThrow(), FunctionDescriptor.of(JAVA_INT));
        static final MethodHandle UMOUNT2 = LINKER.downcallHandle(C.find("umount2").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
        static final MethodHandle DUP = LINKER.downcallHandle(C.find("dup").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        static final MethodHandle DUP2 = LINKER.downcallHandle(C.find("dup2").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
        static final MethodHandle CLOSE = LINKER.downcallHandle(C.find("close").orElseThrow(), FunctionDescriptor.of(JAVA_INT, JAVA_INT));
        static final MethodHandle OPEN = LINKER.downcallHandle(C.find("open").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT), Linker.Option.firstVariadicArg(2));
        // int vsnprintf(char *, size_t, const char *, va_list): on x86-64 a va_list argument is a pointer.
        static final MethodHandle VSNPRINTF = LINKER.downcallHandle(C.find("vsnprintf").orElseThrow(),
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
    }

    /** Where libfuse's messages go: the mounting thread's list while it mounts, else standard error. */
    private static final ThreadLocal<List<String>> LOG = new ThreadLocal<>();

    private static final class Log {
        static final MemorySegment FUNC;

        static {
            try {
                MethodHandle h = MethodHandles.lookup().findStatic(Log.class, "log",
                        MethodType.methodType(void.class, int.class, MemorySegment.class, MemorySegment.class));
                FUNC = LINKER.upcallStub(h, FunctionDescriptor.ofVoid(JAVA_INT, ADDRESS, ADDRESS), Arena.global());
                Lib.SET_LOG_FUNC.invokeExact(FUNC);
            } catch (Throwable t) {
                throw new ExceptionInInitializerError(t);
            }
        }

        // void (*fuse_log_func_t)(enum fuse_log_level level, const char *fmt, va_list ap)
        private static void log(int level, MemorySegment fmt, MemorySegment ap) {
            try (Arena a = Arena.ofConfined()) {
                MemorySegment buf = a.allocate(1024);
                int n = (int) Libc.VSNPRINTF.invokeExact(buf, 1024L, fmt, ap);
                String msg = n < 0 ? "" : buf.getString(0).strip();
                List<String> sink = LOG.get();
                if (sink != null) {
                    sink.add(msg);
                } else if (!msg.isEmpty()) {
                    System.err.println("hwtool: libfuse: " + msg);
                }
            } catch (Throwable t) {
                // An upcall must not throw (the JVM would crash); a lost log line is the lesser harm.
            }
        }

        static void install() {
            // The static initialiser does the work once.
        }
    }

    /** Creates and mounts a session; throws HwException with libfuse's own reason on failure. */
    static Session open(Path dir, FuseFilesystem fs, String fsname, boolean autoUnmount) {
        if (Lib.LOOKUP == null) {
            throw new HwException(Cause.UNSUPPORTED, "libfuse3 cannot be loaded (" + SONAME + ": "
                    + Lib.MISSING.getMessage() + ")", "install it: apt-get install fuse3 libfuse3-3");
        }
        Log.install();
        return new Session(dir, fs, fsname, autoUnmount);
    }

    /** One fuse_new/fuse_mount'ed file system, its upcall stubs and the memory they live in. */
    static final class Session {
        private final Arena arena = Arena.ofShared();
        private final FuseFilesystem fs;
        private final Path dir;
        private final MemorySegment fuse;
        private final int uid;
        private final MethodHandle filler = LINKER.downcallHandle(
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT));

        private Session(Path dir, FuseFilesystem fs, String fsname, boolean autoUnmount) {
            this.fs = fs;
            this.dir = dir;
            try {
                this.uid = (int) Libc.GETEUID.invokeExact();
                MemorySegment ops = arena.allocate(OPS_SIZE, 8);
                ops.set(ADDRESS, OPS_GETATTR, stub("getattr", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS)));
                ops.set(ADDRESS, OPS_READDIR, stub("readdir",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS, JAVA_INT)));
                ops.set(ADDRESS, OPS_OPEN, stub("open", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)));
                ops.set(ADDRESS, OPS_READ, stub("read",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS)));
                ops.set(ADDRESS, OPS_WRITE, stub("write",
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_LONG, JAVA_LONG, ADDRESS)));
                ops.set(ADDRESS, OPS_RELEASE, stub("release", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS)));

                // auto_unmount (fuse(8)): libfuse mounts through fusermount3, which stays as a helper and
                // unmounts if this process dies without unmounting (SIGKILL, a crash).
                String[] argv = {"hwtool", "-o", "fsname=" + fsname + ",subtype=hwtool" + (autoUnmount ? ",auto_unmount" : "")};
                MemorySegment av = arena.allocate(ADDRESS, argv.length + 1);
                for (int i = 0; i < argv.length; i++) {
                    av.setAtIndex(ADDRESS, i, arena.allocateFrom(argv[i]));
                }
                av.setAtIndex(ADDRESS, argv.length, MemorySegment.NULL);
                MemorySegment args = arena.allocate(ARGS_SIZE, 8);
                args.set(JAVA_INT, ARGS_ARGC, argv.length);
                args.set(ADDRESS, ARGS_ARGV, av);
                args.set(JAVA_INT, ARGS_ALLOCATED, 0);

                List<String> messages = new ArrayList<>();
                LOG.set(messages);
                try {
                    MemorySegment f = (MemorySegment) Lib.FUSE_NEW.invokeExact(args, ops, OPS_SIZE, MemorySegment.NULL);
                    if (f.equals(MemorySegment.NULL)) {
                        arena.close();
                        throw new HwException(Cause.OS_ERROR, "libfuse refused to set up the file system: " + String.join("; ", messages));
                    }
                    int rc = mountCapturingStderr(f, dir, messages);
                    if (rc != 0) {
                        Lib.FUSE_DESTROY.invokeExact(f);
                        arena.close();
                        throw mountFailure(dir, messages);
                    }
                    this.fuse = f;
                } finally {
                    LOG.remove();
                }
            } catch (HwException e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("binding libfuse3 failed", t);
            }
        }

        /**
         * fuse_mount with file descriptor 2 pointed at a scratch file: fusermount3, which libfuse
         * runs for auto_unmount and for others than root, reports on its inherited standard error,
         * not through fuse_log. What it wrote joins {@code messages}; on success anything written
         * there (by it or by another thread meanwhile) is passed on to the real standard error.
         */
        private int mountCapturingStderr(MemorySegment f, Path dir, List<String> messages) throws Throwable {
            Path scratch = java.nio.file.Files.createTempFile("hwtool-fuse-mount", ".log");
            try (Arena a = Arena.ofConfined()) {
                int fd = (int) Libc.OPEN.invokeExact(a.allocateFrom(scratch.toString()), 01 /* O_WRONLY */);
                int saved = fd < 0 ? -1 : (int) Libc.DUP.invokeExact(2);
                if (saved >= 0) {
                    int ignored = (int) Libc.DUP2.invokeExact(fd, 2);
                }
                if (fd >= 0) {
                    int ignored = (int) Libc.CLOSE.invokeExact(fd);
                }
                int rc;
                try {
                    rc = (int) Lib.FUSE_MOUNT.invokeExact(f, a.allocateFrom(dir.toString()));
                } finally {
                    if (saved >= 0) {
                        int ignored = (int) Libc.DUP2.invokeExact(saved, 2);
                        ignored = (int) Libc.CLOSE.invokeExact(saved);
                    }
                }
                String written = java.nio.file.Files.readString(scratch).strip();
                if (rc != 0) {
                    written.lines().map(String::strip).filter(l -> !l.isEmpty()).forEach(messages::add);
                } else if (!written.isEmpty()) {
                    System.err.println(written);
                }
                return rc;
            } finally {
                java.nio.file.Files.deleteIfExists(scratch);
            }
        }

        private static HwException mountFailure(Path dir, List<String> messages) {
            String why = messages.isEmpty() ? "no reason given"
                    : String.join("; ", messages.stream().map(m -> m.replaceFirst("^(fuse|fusermount3): ", "")).toList());
            String lower = why.toLowerCase(java.util.Locale.ROOT);
            if (lower.contains("permission denied") || lower.contains("operation not permitted")) {
                return new HwException(Cause.PERMISSION_DENIED, "cannot mount a FUSE file system on " + dir + ": " + why,
                        "run as root, or install fuse3 (its setuid fusermount3) and own the directory");
            }
            return new HwException(Cause.OS_ERROR, "cannot mount a FUSE file system on " + dir + ": " + why);
        }

        private MemorySegment stub(String name, FunctionDescriptor fd) throws ReflectiveOperationException {
            MethodHandle h = MethodHandles.lookup().findVirtual(Session.class, name, fd.toMethodType()).bindTo(this);
            return LINKER.upcallStub(h, fd, arena);
        }

        int loop() {
            try {
                return (int) Lib.FUSE_LOOP.invokeExact(fuse);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /** fuse_exit: the loop ends after the request it is serving or the next one. */
        void exit() {
            try {
                Lib.FUSE_EXIT.invokeExact(fuse);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /**
         * Detaches the mount (MNT_DETACH: umount2(2)); the kernel aborts the connection when the
         * last user is gone, and fuse_loop returns. Others than root go through fusermount3 -u -z.
         */
        void detach() {
            try (Arena a = Arena.ofConfined()) {
                if (uid == 0) {
                    int rc = (int) Libc.UMOUNT2.invokeExact(a.allocateFrom(dir.toString()), MNT_DETACH);
                    if (rc == 0) {
                        return;
                    }
                }
                Process p = new ProcessBuilder("fusermount3", "-u", "-z", dir.toString()).redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                p.waitFor(10, TimeUnit.SECONDS);
            } catch (IOException e) {
                // No fusermount3: the mount goes away when this process exits and closes /dev/fuse.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            }
        }

        /**
         * fuse_destroy: closes /dev/fuse (which aborts the connection if a holder still keeps the
         * superblock) and frees libfuse's state; then frees the stubs. Not fuse_unmount: the mount
         * is already detached (detach(), or an outside unmount), and fuse_unmount would try the
         * path again and log "failed to unmount".
         */
        void destroy() {
            try {
                Lib.FUSE_DESTROY.invokeExact(fuse);
            } catch (Throwable t) {
                throw new IllegalStateException(t);
            } finally {
                arena.close();
            }
        }

        // ---- upcalls: each catches everything (an exception escaping an upcall ends the JVM)

        private static String path(MemorySegment p) {
            return p.reinterpret(PATH_MAX).getString(0);
        }

        private static FuseFilesystem.Caller caller() throws Throwable {
            MemorySegment ctx = ((MemorySegment) Lib.FUSE_GET_CONTEXT.invokeExact()).reinterpret(CTX_PID + 4);
            return new FuseFilesystem.Caller(ctx.get(JAVA_INT, CTX_PID), ctx.get(JAVA_INT, CTX_UID));
        }

        // int (*getattr)(const char *, struct stat *, struct fuse_file_info *fi)
        private int getattr(MemorySegment path, MemorySegment stat, MemorySegment fi) {
            try {
                FuseFilesystem.Node n = fs.lookup(path(path));
                if (n == null) {
                    return -Errno.ENOENT;
                }
                MemorySegment st = stat.reinterpret(STAT_SIZE);
                st.fill((byte) 0);
                st.set(JAVA_INT, ST_UID, uid);
                st.set(JAVA_INT, ST_GID, 0);
                switch (n) {
                    case FuseFilesystem.Directory d -> {
                        st.set(JAVA_INT, ST_MODE, S_IFDIR | 0555);
                        st.set(JAVA_LONG, ST_NLINK, 2);
                    }
                    case FuseFilesystem.File f -> {
                        st.set(JAVA_INT, ST_MODE, S_IFREG | f.mode());
                        st.set(JAVA_LONG, ST_NLINK, 1);
                        st.set(JAVA_LONG, ST_SIZE, f.size());
                    }
                }
                return 0;
            } catch (Throwable t) {
                return -Errno.EIO;
            }
        }

        // int (*readdir)(const char *, void *, fuse_fill_dir_t, off_t, struct fuse_file_info *, enum fuse_readdir_flags)
        private int readdir(MemorySegment path, MemorySegment buf, MemorySegment fill, long off, MemorySegment fi, int flags) {
            try (Arena a = Arena.ofConfined()) {
                FuseFilesystem.Node n = fs.lookup(path(path));
                if (!(n instanceof FuseFilesystem.Directory d)) {
                    return n == null ? -Errno.ENOENT : -20; // ENOTDIR
                }
                List<String> names = new ArrayList<>(List.of(".", ".."));
                names.addAll(d.entries());
                for (String name : names) {
                    // int (*fuse_fill_dir_t)(void *buf, const char *name, const struct stat *, off_t, enum fuse_fill_dir_flags)
                    int full = (int) filler.invokeExact(fill, buf, a.allocateFrom(name), MemorySegment.NULL, 0L, 0);
                    if (full != 0) {
                        break;
                    }
                }
                return 0;
            } catch (Throwable t) {
                return -Errno.EIO;
            }
        }

        // int (*open)(const char *, struct fuse_file_info *)
        private int open(MemorySegment path, MemorySegment fi) {
            try {
                String p = path(path);
                FuseFilesystem.Node n = fs.lookup(p);
                if (n == null) {
                    return -Errno.ENOENT;
                }
                MemorySegment info = fi.reinterpret(FFI_BITS + 4);
                int rc = fs.open(p, info.get(JAVA_INT, FFI_FLAGS), caller());
                if (rc == 0) {
                    info.set(JAVA_INT, FFI_BITS, info.get(JAVA_INT, FFI_BITS) | (1 << FFI_DIRECT_IO_BIT));
                }
                return rc;
            } catch (Throwable t) {
                return -Errno.EIO;
            }
        }

        // int (*read)(const char *, char *, size_t, off_t, struct fuse_file_info *)
        private int read(MemorySegment path, MemorySegment buf, long size, long off, MemorySegment fi) {
            try {
                byte[] b = new byte[(int) Math.min(size, 1 << 20)];
                int n = fs.read(path(path), b, off, caller());
                if (n > 0) {
                    MemorySegment.copy(b, 0, buf.reinterpret(n), ValueLayout.JAVA_BYTE, 0, n);
                }
                return n;
            } catch (Throwable t) {
                return -Errno.EIO;
            }
        }

        // int (*write)(const char *, const char *, size_t, off_t, struct fuse_file_info *)
        private int write(MemorySegment path, MemorySegment buf, long size, long off, MemorySegment fi) {
            try {
                byte[] b = buf.reinterpret(size).toArray(ValueLayout.JAVA_BYTE);
                return fs.write(path(path), b, off, caller());
            } catch (Throwable t) {
                return -Errno.EIO;
            }
        }

        // int (*release)(const char *, struct fuse_file_info *)
        private int release(MemorySegment path, MemorySegment fi) {
            return 0;
        }
    }
}
