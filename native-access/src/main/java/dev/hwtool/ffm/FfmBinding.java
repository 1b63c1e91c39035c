package dev.hwtool.ffm;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.MachineCode;
import dev.hwtool.bind.NativeBinding;

import java.lang.foreign.AddressLayout;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Objects;
import java.util.function.Function;

/**
 * {@link NativeBinding} through Java's Foreign Function &amp; Memory API (JEP 454). Every libc
 * downcall handle is linked once, on first use (a holder class each), and captures errno with
 * {@code Linker.Option.captureCallState("errno")}; the variadic {@code open}, {@code syscall}
 * and {@code ioctl} are linked with {@code firstVariadicArg} so the caller sets up the varargs
 * ABI (AL = vector-register count) as glibc's {@code va_arg} expects (except {@code syscall} on
 * x86-64, whose glibc code never reads AL: see {@code Syscall}).
 *
 * <p>Start-up: each distinct downcall shape (descriptor and options) costs a link of its own, a
 * generated stub class and lambda forms that the AOT cache does not keep (several milliseconds in
 * a fresh JVM); handles of the same shape share it. So on x86-64 the libc calls go through the one
 * {@code syscall} shape (see {@link #RAW_SYSCALLS}), and so do a process's first CPUIDs; only a
 * caller that goes on calling the stubs links shapes of their own (critical ones, see StubPage).
 *
 * <p>The machine-code stubs live on one code page per process ({@link StubPage}), mapped on
 * first use and never unmapped: another thread may be executing in it at any time.
 *
 * <p>{@code @SuppressWarnings("restricted")}: linking and reinterpreting native memory is this
 * class's whole job; the JVM still demands {@code --enable-native-access} at run time.
 */
@SuppressWarnings("restricted")
public final class FfmBinding implements NativeBinding {

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();

    // C types on x86-64 Linux (LP64): int is 32-bit; long, size_t, ssize_t, off_t and pid_t-sized
    // returns of syscall(2) are 64-bit.
    private static final ValueLayout.OfInt C_INT = ValueLayout.JAVA_INT;
    private static final ValueLayout.OfLong C_LONG = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfLong SIZE_T = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfLong SSIZE_T = ValueLayout.JAVA_LONG;
    private static final ValueLayout.OfLong OFF_T = ValueLayout.JAVA_LONG;
    private static final AddressLayout POINTER = ValueLayout.ADDRESS;

    /** cpu_set_t from glibc: 1024 bits. sched_getaffinity grows past it on EINVAL. */
    private static final int CPU_SET_BYTES = 1024 / 8;
    /** Beyond any nr_cpu_ids Linux supports (CONFIG_NR_CPUS max 8192), with margin. */
    private static final int CPU_SET_BYTES_MAX = 1 << 16;

    /** The largest argument count syscall(2) passes on (x86-64 syscalls take at most 6). */
    private static final int SYSCALL_MAX_ARGS = 6;

    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();

    /**
     * Where errno sits in the capture state. Summed over the struct's members (padding included,
     * which is how a struct layout places them) rather than through a layout path: a path's
     * byte offset or var handle spins lambda forms at run time, milliseconds in a fresh JVM, and
     * a probe that fails (as caps's do on a machine without a PMU) would pay them.
     */
    private static final long ERRNO_OFFSET = errnoOffset();

    private static long errnoOffset() {
        long at = 0;
        for (MemoryLayout m : CALL_STATE.memberLayouts()) {
            if ("errno".equals(m.name().orElse(null))) {
                return at;
            }
            at += m.byteSize();
        }
        throw new IllegalStateException("the capture state layout has no errno: " + CALL_STATE);
    }
    private static final Linker.Option CAPTURE_ERRNO = Linker.Option.captureCallState("errno");

    /**
     * Per thread, one native block: the errno capture segment (the call writes it, the same thread
     * reads it) and a scratch buffer for the small transfers that dominate (8-byte MSRs, 16-byte
     * CPUID records, a /dev/cpu/N/msr path, the affinity mask of up to 1024 CPUs): opening and
     * closing a confined arena per call cost more than the copy, and one thread-local lookup per
     * call serves both.
     */
    private static final int SCRATCH_SIZE = CPU_SET_BYTES;

    private record PerThread(MemorySegment state, MemorySegment scratch) {
        static PerThread allocate() {
            Arena arena = Arena.ofAuto();
            return new PerThread(arena.allocate(CALL_STATE), arena.allocate(SCRATCH_SIZE, 8));
        }
    }

    private static final ThreadLocal<PerThread> PER_THREAD = ThreadLocal.withInitial(PerThread::allocate);

    // Each downcall handle sits in its own holder class, linked on first use: linking costs
    // milliseconds per handle, and a one-shot command uses only a few of them. On x86-64 only
    // ReadCritical and Syscall are used (RAW_SYSCALLS); the others serve other architectures.

    // int open(const char *path, int flags, ... /* mode_t mode */);
    private static final class Open {
        static final MethodHandle H = libc("open",
                FunctionDescriptor.of(C_INT, POINTER, C_INT, C_INT), Linker.Option.firstVariadicArg(2));
    }
    // int close(int fd);
    private static final class Close {
        static final MethodHandle H = libc("close", FunctionDescriptor.of(C_INT, C_INT));
    }
    // ssize_t pread(int fd, void *buf, size_t count, off_t offset);
    // Not Linker.Option.critical, although it would save the thread-state transitions that are
    // most of this call's overhead: critical is for functions that are "extremely short ... in all
    // cases" and never block, and a pread can block. On /dev/cpu/N/msr, msr_read
    // (arch/x86/kernel/msr.c) calls rdmsr_safe_on_cpu (arch/x86/lib/msr-smp.c), which for another
    // CPU queues the read there with smp_call_function_single_async and sleeps in
    // wait_for_completion until that CPU has run it: an IPI round trip, longer when a hypervisor
    // has descheduled the target vCPU. Inside a critical call the JVM counts the thread as running
    // Java code, so every safepoint (each GC) would wait for that sleep.
    private static final class Pread {
        static final MethodHandle H = libc("pread",
                FunctionDescriptor.of(SSIZE_T, C_INT, POINTER, SIZE_T, OFF_T));
    }
    // ssize_t read(int fd, void *buf, size_t count);
    private static final class Read {
        static final MethodHandle H = libc("read", FunctionDescriptor.of(SSIZE_T, C_INT, POINTER, SIZE_T));
    }
    // read(2) as a critical downcall with heap access (JDK 22 Linker.Option.critical): only for
    // fds that never block, see NativeBinding.readNonBlocking.
    private static final class ReadCritical {
        static final MethodHandle H = libc("read", FunctionDescriptor.of(SSIZE_T, C_INT, POINTER, SIZE_T),
                Linker.Option.critical(true));
    }
    // ssize_t pwrite(int fd, const void *buf, size_t count, off_t offset);
    private static final class Pwrite {
        static final MethodHandle H = libc("pwrite",
                FunctionDescriptor.of(SSIZE_T, C_INT, POINTER, SIZE_T, OFF_T));
    }
    // int ioctl(int fd, unsigned long request, ...);  the one vararg passed as a long
    private static final class Ioctl {
        static final MethodHandle H = libc("ioctl",
                FunctionDescriptor.of(C_INT, C_INT, C_LONG, C_LONG), Linker.Option.firstVariadicArg(2));
    }
    // void *mmap(void *addr, size_t length, int prot, int flags, int fd, off_t offset);
    private static final class Mmap {
        static final MethodHandle H = libc("mmap",
                FunctionDescriptor.of(POINTER, POINTER, SIZE_T, C_INT, C_INT, C_INT, OFF_T));
    }
    // int munmap(void *addr, size_t length);
    private static final class Munmap {
        static final MethodHandle H = libc("munmap", FunctionDescriptor.of(C_INT, POINTER, SIZE_T));
    }
    // int mprotect(void *addr, size_t len, int prot);
    private static final class Mprotect {
        static final MethodHandle H = libc("mprotect",
                FunctionDescriptor.of(C_INT, POINTER, SIZE_T, C_INT));
    }
    // int sched_getaffinity(pid_t pid, size_t cpusetsize, cpu_set_t *mask);
    private static final class SchedGetaffinity {
        static final MethodHandle H = libc("sched_getaffinity",
                FunctionDescriptor.of(C_INT, C_INT, SIZE_T, POINTER));
    }
    // int sched_setaffinity(pid_t pid, size_t cpusetsize, const cpu_set_t *mask);
    private static final class SchedSetaffinity {
        static final MethodHandle H = libc("sched_setaffinity",
                FunctionDescriptor.of(C_INT, C_INT, SIZE_T, POINTER));
    }
    // int sched_getcpu(void);
    private static final class SchedGetcpu {
        static final MethodHandle H = libc("sched_getcpu", FunctionDescriptor.of(C_INT));
    }
    // long syscall(long number, ...);  one handle for every syscall: the number and always six
    // variadic longs, unused ones 0. Each distinct shape costs its own link (a generated stub class
    // and lambda forms, milliseconds in a fresh JVM), so one shape serves all calls. Passing more
    // variadic arguments than the callee reads is defined C (C17 7.16: nothing requires va_arg to
    // reach the last one), and glibc's syscall
    // (sysdeps/unix/sysv/linux/x86_64/syscall.S) loads all six argument registers whatever the
    // syscall, so the kernel sees exactly what a shorter call would pass plus zeros it ignores.
    //
    // On x86-64 it is linked as a fixed-argument function: the variadic link costs about 10 ms more
    // on first use (measured under the AOT cache, median of 11 fresh JVMs: 35 against 24 ms), and
    // the one thing a variadic call adds on x86-64, AL = the number of vector registers used (System
    // V AMD64 ABI 3.5.7), is never read by glibc's syscall: it is assembly whose first instruction
    // overwrites rax with the syscall number (sysdeps/unix/sysv/linux/x86_64/syscall.S). Elsewhere
    // the variadic link stays: this holder; the x86-64 link is Raw, unbound (its first argument is
    // the function's address), so that a process's first CPUIDs go through the same shape into the
    // CPUID stub.
    private static final class Syscall {
        static final MethodHandle H = libc("syscall",
                FunctionDescriptor.of(C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG),
                Linker.Option.firstVariadicArg(1));
    }

    /**
     * x86-64: the one downcall shape of a one-shot command, {@code long f(long x 7)} with errno
     * captured, unbound: called with the address of glibc's syscall, or of the CPUID stub (see
     * {@link StubPage#cpuid}). A bound handle is the unbound one with its address inserted
     * (AbstractLinker.downcallHandle), so unbound costs no more to link and saves that adapter.
     */
    private static final class Raw {
        static final MethodHandle H = LINKER.downcallHandle(
                FunctionDescriptor.of(C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG, C_LONG), CAPTURE_ERRNO);
        static final MemorySegment SYSCALL = symbol("syscall");
    }

    /**
     * On x86-64 every call but the critical read goes through {@link Syscall}, instead of a libc
     * wrapper each: a CPUID read links one shape instead of five, an MSR read one instead of three.
     * Numbers from the kernel's arch/x86/entry/syscalls/syscall_64.tbl; other architectures keep
     * the libc wrappers. The results and errors are the same: each of these wrappers in glibc is the
     * bare syscall (open is openat(AT_FDCWD, ...), sysdeps/unix/sysv/linux/open64.c), and glibc's
     * syscall sets errno from the kernel's -errno and returns -1 as the wrappers do.
     */
    private static final boolean RAW_SYSCALLS = MachineCode.runsHere();
    private static final long NR_READ = 0;
    private static final long NR_CLOSE = 3;
    private static final long NR_IOCTL = 16;
    private static final long NR_PREAD64 = 17;
    private static final long NR_PWRITE64 = 18;
    private static final long NR_MMAP = 9;
    private static final long NR_MPROTECT = 10;
    private static final long NR_MUNMAP = 11;
    private static final long NR_SCHED_SETAFFINITY = 203;
    private static final long NR_SCHED_GETAFFINITY = 204;
    private static final long NR_OPENAT = 257;
    private static final long NR_GETCPU = 309;
    /** include/uapi/linux/fcntl.h */
    private static final long AT_FDCWD = -100;

    /** syscall(2) through the one handle; the caller checks for -1 and names the call. */
    private static long syscall6(MemorySegment state, long nr, long a1, long a2, long a3, long a4, long a5, long a6) {
        try {
            return RAW_SYSCALLS ? (long) Raw.H.invokeExact(Raw.SYSCALL, state, nr, a1, a2, a3, a4, a5, a6)
                    : (long) Syscall.H.invokeExact(state, nr, a1, a2, a3, a4, a5, a6);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    public FfmBinding() {
    }

    private static MemorySegment symbol(String name) {
        // No lambda for the absent case: a one-shot command should not spin a class for it.
        java.util.Optional<MemorySegment> found = LIBC.find(name);
        if (found.isEmpty()) {
            throw new UnsatisfiedLinkError("libc has no symbol " + name);
        }
        return found.get();
    }

    private static MethodHandle libc(String name, FunctionDescriptor fd, Linker.Option... extra) {
        MemorySegment symbol = symbol(name);
        Linker.Option[] options = new Linker.Option[extra.length + 1];
        options[0] = CAPTURE_ERRNO;
        System.arraycopy(extra, 0, options, 1, extra.length);
        return LINKER.downcallHandle(symbol, fd, options);
    }

    @Override
    public String name() {
        return "ffm";
    }

    private static MemorySegment callState() {
        return PER_THREAD.get().state();
    }

    private static int errno(MemorySegment state) {
        return state.get(C_INT, ERRNO_OFFSET);
    }

    private static ErrnoException failure(String call, MemorySegment state, String subject) {
        return new ErrnoException(call, errno(state), subject);
    }

    /** Downcalls declare Throwable; only errors and unchecked exceptions can really come out. */
    private static RuntimeException propagate(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException("unexpected checked exception from a downcall", t);
    }

    @Override
    public int open(String path, int flags) {
        Objects.requireNonNull(path, "path");
        PerThread t = PER_THREAD.get();
        // UTF-8 takes at most 3 bytes per char (a surrogate pair, 2 chars, takes 4), plus the NUL.
        if (3L * path.length() + 1 <= SCRATCH_SIZE) {
            t.scratch().setString(0, path);
            return openAt(t.state(), t.scratch(), path, flags);
        }
        try (Arena arena = Arena.ofConfined()) {
            return openAt(t.state(), arena.allocateFrom(path), path, flags);
        }
    }

    private static int openAt(MemorySegment state, MemorySegment cPath, String path, int flags) {
        int fd;
        try {
            // glibc's open is openat(AT_FDCWD, ...) (sysdeps/unix/sysv/linux/open64.c)
            fd = RAW_SYSCALLS ? (int) syscall6(state, NR_OPENAT, AT_FDCWD, cPath.address(), flags, 0, 0, 0)
                    : (int) Open.H.invokeExact(state, cPath, flags, 0);
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (fd < 0) {
            throw failure("open", state, path);
        }
        return fd;
    }

    @Override
    public void close(int fd) {
        MemorySegment state = callState();
        int rc;
        try {
            rc = RAW_SYSCALLS ? (int) syscall6(state, NR_CLOSE, fd, 0, 0, 0, 0, 0) : (int) Close.H.invokeExact(state, fd);
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (rc != 0) {
            throw failure("close", state, "fd " + fd);
        }
    }

    @Override
    public long pread(int fd, byte[] buf, int length, long offset) {
        Objects.checkFromIndexSize(0, length, buf.length);
        PerThread t = PER_THREAD.get();
        if (length <= SCRATCH_SIZE) {
            return preadInto(t.scratch(), t.state(), fd, buf, length, offset);
        }
        try (Arena arena = Arena.ofConfined()) {
            return preadInto(arena.allocate(length), t.state(), fd, buf, length, offset);
        }
    }

    private long preadInto(MemorySegment nbuf, MemorySegment state, int fd, byte[] buf, int length, long offset) {
        try {
            long n = RAW_SYSCALLS ? syscall6(state, NR_PREAD64, fd, nbuf.address(), length, offset, 0, 0)
                    : (long) Pread.H.invokeExact(state, fd, nbuf, (long) length, offset);
            if (n < 0) {
                throw failure("pread", state, "fd " + fd + ", offset 0x" + Long.toHexString(offset));
            }
            MemorySegment.copy(nbuf, ValueLayout.JAVA_BYTE, 0, buf, 0, (int) n);
            return n;
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public long read(int fd, byte[] buf, int length) {
        Objects.checkFromIndexSize(0, length, buf.length);
        PerThread t = PER_THREAD.get();
        if (length <= SCRATCH_SIZE) {
            return readInto(t.scratch(), t.state(), fd, buf, length);
        }
        try (Arena arena = Arena.ofConfined()) {
            return readInto(arena.allocate(length), t.state(), fd, buf, length);
        }
    }

    private long readInto(MemorySegment nbuf, MemorySegment state, int fd, byte[] buf, int length) {
        try {
            long n = RAW_SYSCALLS ? syscall6(state, NR_READ, fd, nbuf.address(), length, 0, 0, 0)
                    : (long) Read.H.invokeExact(state, fd, nbuf, (long) length);
            if (n < 0) {
                throw failure("read", state, "fd " + fd);
            }
            MemorySegment.copy(nbuf, ValueLayout.JAVA_BYTE, 0, buf, 0, (int) n);
            return n;
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public long readNonBlocking(int fd, byte[] buf, int length) {
        Objects.checkFromIndexSize(0, length, buf.length);
        MemorySegment state = callState();
        try {
            long n = (long) ReadCritical.H.invokeExact(state, fd, MemorySegment.ofArray(buf), (long) length);
            if (n < 0) {
                throw failure("read", state, "fd " + fd);
            }
            return n;
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public long pwrite(int fd, byte[] buf, int length, long offset) {
        Objects.checkFromIndexSize(0, length, buf.length);
        PerThread t = PER_THREAD.get();
        if (length <= SCRATCH_SIZE) {
            return pwriteFrom(t.scratch(), t.state(), fd, buf, length, offset);
        }
        try (Arena arena = Arena.ofConfined()) {
            return pwriteFrom(arena.allocate(length), t.state(), fd, buf, length, offset);
        }
    }

    private long pwriteFrom(MemorySegment nbuf, MemorySegment state, int fd, byte[] buf, int length, long offset) {
        try {
            MemorySegment.copy(buf, 0, nbuf, ValueLayout.JAVA_BYTE, 0, length);
            long n = RAW_SYSCALLS ? syscall6(state, NR_PWRITE64, fd, nbuf.address(), length, offset, 0, 0)
                    : (long) Pwrite.H.invokeExact(state, fd, nbuf, (long) length, offset);
            if (n < 0) {
                throw failure("pwrite", state, "fd " + fd + ", offset 0x" + Long.toHexString(offset));
            }
            return n;
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public long ioctl(int fd, long request, long arg) {
        MemorySegment state = callState();
        int rc;
        try {
            rc = RAW_SYSCALLS ? (int) syscall6(state, NR_IOCTL, fd, request, arg, 0, 0, 0)
                    : (int) Ioctl.H.invokeExact(state, fd, request, arg);
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (rc == -1) {
            throw failure("ioctl", state, "fd " + fd + ", request 0x" + Long.toHexString(request));
        }
        return rc;
    }

    @Override
    public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        MemorySegment state = callState();
        if (RAW_SYSCALLS) {
            long rc = syscall6(state, NR_MMAP, addr, length, prot, flags, fd, offset);
            if (rc == -1) {
                throw failure("mmap", state, "length " + length);
            }
            return rc;
        }
        MemorySegment mapped;
        try {
            mapped = (MemorySegment) Mmap.H.invokeExact(state, MemorySegment.ofAddress(addr), length, prot, flags, fd,
                    offset);
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (mapped.address() == -1L) { // MAP_FAILED
            throw failure("mmap", state, "length " + length);
        }
        return mapped.address();
    }

    @Override
    public void munmap(long addr, long length) {
        MemorySegment state = callState();
        long rc;
        try {
            rc = RAW_SYSCALLS ? syscall6(state, NR_MUNMAP, addr, length, 0, 0, 0, 0)
                    : (int) Munmap.H.invokeExact(state, MemorySegment.ofAddress(addr), length);
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (rc != 0) {
            throw failure("munmap", state, "0x" + Long.toHexString(addr));
        }
    }

    @Override
    public void mprotect(long addr, long length, int prot) {
        MemorySegment state = callState();
        long rc;
        try {
            rc = RAW_SYSCALLS ? syscall6(state, NR_MPROTECT, addr, length, prot, 0, 0, 0)
                    : (int) Mprotect.H.invokeExact(state, MemorySegment.ofAddress(addr), length, prot);
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (rc != 0) {
            throw failure("mprotect", state, "0x" + Long.toHexString(addr));
        }
    }

    @Override
    public long syscall(long number, long... args) {
        if (args.length > SYSCALL_MAX_ARGS) {
            throw new IllegalArgumentException("syscall takes at most 6 arguments, got " + args.length);
        }
        MemorySegment state = callState();
        long[] a = Arrays.copyOf(args, SYSCALL_MAX_ARGS);
        long rc = syscall6(state, number, a[0], a[1], a[2], a[3], a[4], a[5]);
        if (rc == -1) {
            throw failure("syscall", state, Long.toString(number));
        }
        return rc;
    }

    @Override
    public BitSet schedGetaffinity() {
        PerThread t = PER_THREAD.get();
        for (int size = CPU_SET_BYTES; size <= CPU_SET_BYTES_MAX; size *= 2) {
            int n = size;
            BitSet cpus = withMask(t, size, mask -> getaffinity(t.state(), mask, n));
            if (cpus != null) {
                return cpus;
            }
            // EINVAL: the mask is smaller than the kernel's nr_cpu_ids; try a bigger one.
        }
        throw new ErrnoException("sched_getaffinity", Errno.EINVAL, "mask larger than " + CPU_SET_BYTES_MAX + " bytes");
    }

    /** The mask read into {@code mask} (zeroed, {@code size} bytes), or null on EINVAL (too small). */
    private static BitSet getaffinity(MemorySegment state, MemorySegment mask, int size) {
        long rc;
        try {
            // The raw syscall returns the bytes it wrote (the wrapper 0) and leaves the rest of
            // the zeroed mask alone, as glibc's wrapper clears it: the same set either way.
            rc = RAW_SYSCALLS ? syscall6(state, NR_SCHED_GETAFFINITY, 0, size, mask.address(), 0, 0, 0)
                    : (int) SchedGetaffinity.H.invokeExact(state, 0, (long) size, mask);
        } catch (Throwable e) {
            throw propagate(e);
        }
        if (rc >= 0) {
            // cpu_set_t is an array of unsigned long: CPU n is word n/64, bit n%64, exactly
            // BitSet.valueOf(long[])'s numbering. Word by word rather than toArray: a copy
            // into a heap array spins a class (Utils.BaseAndScale's type switch) on first use.
            long[] words = new long[size / 8];
            for (int i = 0; i < words.length; i++) {
                words[i] = mask.getAtIndex(C_LONG, i);
            }
            return BitSet.valueOf(words);
        }
        if (errno(state) != Errno.EINVAL) {
            throw failure("sched_getaffinity", state, null);
        }
        return null;
    }

    @Override
    public void schedSetaffinity(BitSet cpus) {
        long[] words = cpus.toLongArray();
        int size = Math.max(CPU_SET_BYTES, words.length * 8);
        PerThread t = PER_THREAD.get();
        withMask(t, size, mask -> {
            setaffinity(t.state(), mask, size, words, cpus);
            return null;
        });
    }

    /**
     * Runs {@code call} with a zeroed native mask of {@code size} bytes: the thread's scratch block
     * when it fits (the instruction CPUID source asks for and sets the mask around every pinned
     * section, and a confined arena per call cost more than the call), else an arena of its own.
     */
    private static <T> T withMask(PerThread t, int size, Function<MemorySegment, T> call) {
        if (size <= SCRATCH_SIZE) {
            return call.apply(t.scratch().asSlice(0, size).fill((byte) 0));
        }
        try (Arena arena = Arena.ofConfined()) {
            return call.apply(arena.allocate(size, 8));
        }
    }

    private static void setaffinity(MemorySegment state, MemorySegment mask, int size, long[] words, BitSet cpus) {
        for (int i = 0; i < words.length; i++) { // as in getaffinity: no heap-array copy
            mask.setAtIndex(C_LONG, i, words[i]);
        }
        long rc;
        try {
            rc = RAW_SYSCALLS ? syscall6(state, NR_SCHED_SETAFFINITY, 0, size, mask.address(), 0, 0, 0)
                    : (int) SchedSetaffinity.H.invokeExact(state, 0, (long) size, mask);
        } catch (Throwable e) {
            throw propagate(e);
        }
        if (rc != 0) {
            throw failure("sched_setaffinity", state, cpus.toString());
        }
    }

    @Override
    public int schedGetcpu() {
        MemorySegment state = callState();
        int cpu;
        try {
            if (RAW_SYSCALLS) {
                // getcpu(&cpu, NULL, NULL): what sched_getcpu reads from rseq or the vDSO.
                MemorySegment out = PER_THREAD.get().scratch();
                cpu = syscall6(state, NR_GETCPU, out.address(), 0, 0, 0, 0, 0) == -1 ? -1 : out.get(C_INT, 0);
            } else {
                cpu = (int) SchedGetcpu.H.invokeExact(state);
            }
        } catch (Throwable t) {
            throw propagate(t);
        }
        if (cpu < 0) {
            throw failure("sched_getcpu", state, null);
        }
        return cpu;
    }

    @Override
    public CpuidRegs cpuid(int leaf, int subleaf) {
        StubPage page = StubPage.get();
        MethodHandle critical = page.cpuid;
        if (critical == null) {
            if (++page.sharedCpuidCalls <= SHARED_CPUID_CALLS) {
                return page.cpuidShared(leaf, subleaf);
            }
            critical = page.linkCpuid();
        }
        int[] out = new int[4];
        try {
            critical.invokeExact(leaf, subleaf, MemorySegment.ofArray(out));
        } catch (Throwable t) {
            throw propagate(t);
        }
        return new CpuidRegs(out[0], out[1], out[2], out[3]);
    }

    @Override
    public long rdtsc() {
        try {
            return (long) StubPage.get().rdtsc().invokeExact();
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public Rdtscp rdtscp() {
        int[] aux = new int[1];
        long tsc;
        try {
            tsc = (long) StubPage.get().rdtscp().invokeExact(MemorySegment.ofArray(aux));
        } catch (Throwable t) {
            throw propagate(t);
        }
        return new Rdtscp(tsc, aux[0]);
    }

    @Override
    public long rdpmc(int counter) {
        try {
            return (long) StubPage.get().rdpmc().invokeExact(counter);
        } catch (Throwable t) {
            throw propagate(t);
        }
    }

    @Override
    public byte[] peek(long address, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        return MemorySegment.ofAddress(address).reinterpret(length).toArray(ValueLayout.JAVA_BYTE);
    }

    /** How many CPUID calls go through the syscall shape before the critical handle is linked (StubPage.cpuid). */
    static final int SHARED_CPUID_CALLS = 256;

    /** For tests: CPUID through the syscall shape, as a process's first calls make it. */
    static CpuidRegs cpuidThroughSharedShape(int leaf, int subleaf) {
        return StubPage.get().cpuidShared(leaf, subleaf);
    }

    /** For tests: whether {@link #cpuid} has switched to the critical downcall. */
    static boolean cpuidIsCritical() {
        return StubPage.get().cpuid != null;
    }

    /** Where this process's stub page is mapped (maps it if it is not yet). */
    public long codePageAddress() {
        return StubPage.get().page.address();
    }

    /**
     * Nothing to release per instance: the handles are static and the stub page is process-wide
     * and stays mapped, since unmapping code another thread may be running would crash the JVM.
     */
    @Override
    public void close() {
    }

    /**
     * The process's one code page and the downcall handles into it. Published through a
     * volatile field only after mprotect has made it read+execute, so no thread can see it
     * writable or half-filled; if setting it up fails, the next call tries again.
     */
    private static final class StubPage {
        private static volatile StubPage instance;

        final MemorySegment page;
        private final MemorySegment cpuidStub;
        /**
         * The CPUID stub as a critical downcall, null for the first {@link FfmBinding#SHARED_CPUID_CALLS}
         * calls: a one-shot command (cpuid, msr decode, caps) makes a few dozen CPUID calls and
         * has linked the syscall shape already, to pin its thread and to map this page, so those
         * calls go through that shape ({@link Raw}) and the command links one downcall shape
         * instead of two (a second link is a stub class and about twenty lambda forms spun at run
         * time, which the AOT cache does not keep: 5 to 14 ms for link and first call in a probe
         * JVM with an AOT cache, on this 2-core machine under load, where the first link took 20-45).
         * A caller that goes on calling (an exporter, a benchmark's warm-up) then gets the
         * critical handle: no thread-state transition, and out[] written straight into the heap.
         */
        private volatile MethodHandle cpuid;
        /** Calls through the shared shape so far; racy on purpose, a few calls more do no harm. */
        private int sharedCpuidCalls;
        // Linked on first use: each downcall link spins its own stub and lambda forms at run
        // time (the AOT cache does not keep them), so a cpuid command pays for cpuid alone.
        private volatile MethodHandle rdtsc;
        private volatile MethodHandle rdtscp;
        private volatile MethodHandle rdpmc;

        // critical: the stubs are a few instructions that never block, so they may run without
        // a thread-state transition and may write straight into a heap int[].
        private static final Linker.Option CRITICAL = Linker.Option.critical(true);

        MethodHandle linkCpuid() {
            MethodHandle h = link(MachineCode.Stub.CPUID, FunctionDescriptor.ofVoid(C_INT, C_INT, POINTER));
            cpuid = h;
            return h;
        }

        private StubPage(MemorySegment page) {
            this.page = page;
            this.cpuidStub = page.asSlice(MachineCode.Stub.CPUID.offset());
        }

        /**
         * CPUID through the syscall shape: the stub reads edi, esi and rdx (System V AMD64 ABI:
         * the first three integer arguments, whether declared int or long) and returns nothing,
         * so the shape's four further arguments and its rax result are ignored; errno, captured
         * after the call, is not looked at. out[] is the thread's native scratch block, not the
         * heap: only a critical downcall may pass a heap segment.
         */
        CpuidRegs cpuidShared(int leaf, int subleaf) {
            PerThread t = PER_THREAD.get();
            MemorySegment out = t.scratch();
            try {
                long ignored = (long) Raw.H.invokeExact(cpuidStub, t.state(),
                        (long) leaf, (long) subleaf, out.address(), 0L, 0L, 0L, 0L);
            } catch (Throwable e) {
                throw propagate(e);
            }
            return new CpuidRegs(out.getAtIndex(C_INT, 0), out.getAtIndex(C_INT, 1),
                    out.getAtIndex(C_INT, 2), out.getAtIndex(C_INT, 3));
        }

        private MethodHandle link(MachineCode.Stub stub, FunctionDescriptor fd) {
            return LINKER.downcallHandle(page.asSlice(stub.offset()), fd, CRITICAL);
        }

        MethodHandle rdtsc() {
            MethodHandle h = rdtsc;
            return h != null ? h : (rdtsc = link(MachineCode.Stub.RDTSC, FunctionDescriptor.of(ValueLayout.JAVA_LONG)));
        }

        MethodHandle rdtscp() {
            MethodHandle h = rdtscp;
            return h != null ? h : (rdtscp = link(MachineCode.Stub.RDTSCP, FunctionDescriptor.of(ValueLayout.JAVA_LONG, POINTER)));
        }

        MethodHandle rdpmc() {
            MethodHandle h = rdpmc;
            return h != null ? h : (rdpmc = link(MachineCode.Stub.RDPMC, FunctionDescriptor.of(ValueLayout.JAVA_LONG, C_INT)));
        }

        static StubPage get() {
            StubPage p = instance;
            if (p == null) {
                synchronized (StubPage.class) {
                    p = instance;
                    if (p == null) {
                        p = new StubPage(map());
                        instance = p;
                    }
                }
            }
            return p;
        }

        /** mmap RW, copy the image, mprotect R+X: the page is never writable and executable at once. */
        private static MemorySegment map() {
            MachineCode.requireX86_64();
            FfmBinding libc = new FfmBinding();
            long size = MachineCode.PAGE_SIZE;
            long addr = libc.mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            try {
                MemorySegment page = MemorySegment.ofAddress(addr).reinterpret(size);
                // Through a direct ByteBuffer: MemorySegment.copy from a heap array spins a class on
                // first use (Utils.BaseAndScale's type switch), which a one-shot command would pay.
                page.asByteBuffer().put(MachineCode.pageImage());
                libc.mprotect(addr, size, PROT_READ | PROT_EXEC);
                return page;
            } catch (RuntimeException | Error e) {
                try {
                    libc.munmap(addr, size);
                } catch (RuntimeException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            }
        }
    }
}
