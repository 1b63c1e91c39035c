package dev.hwtool.qemu;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.nio.file.Path;

/**
 * The few libc calls the guest checks need and hwtool itself does not: loading a kernel module
 * and giving up root. They let one JVM per boot do everything in order, instead of a shell
 * running insmod or a second JVM under another user.
 *
 * <p>glibc's set*id wrappers change the credentials of every thread of the process (nptl's
 * setxid broadcast), unlike the raw system calls, which change only the calling thread; so
 * these go through libc. {@code restricted}: linking native functions is this class's purpose.
 */
@SuppressWarnings("restricted")
final class GuestSyscalls {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG;
    // errno is captured by the downcall itself: the JVM may overwrite it before Java could read it.
    private static final StructLayout CAPTURE = Linker.Option.captureStateLayout();
    private static final VarHandle ERRNO = CAPTURE.varHandle(MemoryLayout.PathElement.groupElement("errno"));
    private static final Linker.Option ERRNO_OPTION = Linker.Option.captureCallState("errno");
    private static final MethodHandle OPEN = handle("open", FunctionDescriptor.of(INT, ValueLayout.ADDRESS, INT));
    private static final MethodHandle CLOSE = handle("close", FunctionDescriptor.of(INT, INT));
    private static final MethodHandle SYSCALL_3 = handle("syscall", FunctionDescriptor.of(LONG, LONG, LONG, LONG, LONG),
            Linker.Option.firstVariadicArg(1));
    private static final MethodHandle SETGROUPS = handle("setgroups", FunctionDescriptor.of(INT, LONG, ValueLayout.ADDRESS));
    private static final MethodHandle SETRESGID = handle("setresgid", FunctionDescriptor.of(INT, INT, INT, INT));
    private static final MethodHandle SETRESUID = handle("setresuid", FunctionDescriptor.of(INT, INT, INT, INT));

    /** __NR_finit_module on x86-64 (arch/x86/entry/syscalls/syscall_64.tbl). */
    private static final long SYS_FINIT_MODULE = 313;
    private static final int O_RDONLY_CLOEXEC = 0x80000;

    private GuestSyscalls() {
    }

    /** finit_module(2) of {@code ko} with no parameters: what insmod does. */
    static void loadModule(Path ko) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            int fd = (int) OPEN.invokeExact(state, arena.allocateFrom(ko.toString()), O_RDONLY_CLOEXEC);
            check("open " + ko, fd, state);
            try {
                long rc = (long) SYSCALL_3.invokeExact(state, SYS_FINIT_MODULE, (long) fd, arena.allocateFrom("").address(), 0L);
                check("finit_module " + ko, (int) rc, state);
            } finally {
                int ignored = (int) CLOSE.invokeExact(state, fd);
            }
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    /**
     * Becomes {@code uid}:{@code gid} with no supplementary groups, real, effective and saved.
     * Leaving uid 0 this way clears the permitted and effective capability sets
     * (capabilities(7), "Effect of user ID changes on capabilities"), so CAP_SYS_RAWIO is gone.
     */
    static void dropTo(int uid, int gid) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CAPTURE);
            check("setgroups", (int) SETGROUPS.invokeExact(state, 0L, MemorySegment.NULL), state);
            check("setresgid", (int) SETRESGID.invokeExact(state, gid, gid, gid), state);
            check("setresuid", (int) SETRESUID.invokeExact(state, uid, uid, uid), state);
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }

    private static void check(String call, int rc, MemorySegment state) {
        if (rc < 0) {
            throw new IllegalStateException(call + ": errno " + (int) ERRNO.get(state, 0L));
        }
    }

    private static MethodHandle handle(String name, FunctionDescriptor fd, Linker.Option... options) {
        MemorySegment symbol = LINKER.defaultLookup().find(name)
                .orElseThrow(() -> new IllegalStateException("libc has no " + name));
        Linker.Option[] all = java.util.Arrays.copyOf(options, options.length + 1);
        all[options.length] = ERRNO_OPTION;
        return LINKER.downcallHandle(symbol, fd, all);
    }
}
