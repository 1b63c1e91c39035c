package dev.hwtool.jna;

import com.sun.jna.Function;
import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import com.sun.jna.Platform;
import com.sun.jna.Pointer;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.MachineCode;
import dev.hwtool.bind.NativeBinding;

import java.util.BitSet;
import java.util.Objects;

/**
 * {@link NativeBinding} through JNA 5, the twin of {@code dev.hwtool.ffm.FfmBinding}. Fixed-argument
 * calls use JNA's direct mapping ({@code Native.register}, about 2x faster than interface
 * mapping); the variadic {@code open}, {@code ioctl} and {@code syscall} go through an interface
 * mapping with {@code Object...}, the only JNA form that sets up the varargs ABI. errno is read
 * with {@link Native#getLastError()}, which JNA saves per thread right after every call, and only
 * when the return value says the call failed (errno is meaningless after a success).
 *
 * <p>Nothing in the rest of hwtool refers to this class except {@code dev.hwtool.linux.sys.Bindings},
 * so JNA is loaded only when this binding is chosen.
 */
public final class JnaBinding implements NativeBinding {

    /** cpu_set_t from glibc: 1024 bits. sched_getaffinity grows past it on EINVAL. */
    private static final int CPU_SET_BYTES = 1024 / 8;
    private static final int CPU_SET_BYTES_MAX = 1 << 16;
    private static final int SYSCALL_MAX_ARGS = 6;

    /** Direct mapping of the fixed-argument libc calls (JNA binds these natives at class init). */
    private static final class LibC {
        static {
            Native.register(LibC.class, NativeLibrary.getInstance(Platform.C_LIBRARY_NAME));
        }

        static native int close(int fd);

        static native long pread(int fd, byte[] buf, long count, long offset);

        static native long pwrite(int fd, byte[] buf, long count, long offset);

        static native long read(int fd, byte[] buf, long count);

        static native Pointer mmap(Pointer addr, long length, int prot, int flags, int fd, long offset);

        static native int munmap(Pointer addr, long length);

        static native int mprotect(Pointer addr, long length, int prot);

        static native int sched_getaffinity(int pid, long cpusetsize, byte[] mask);

        static native int sched_setaffinity(int pid, long cpusetsize, byte[] mask);

        static native int sched_getcpu();
    }

    /** Interface mapping for the variadic calls: {@code Object...} makes JNA call them as varargs. */
    private interface VarargsLibC extends Library {
        VarargsLibC INSTANCE = Native.load(Platform.C_LIBRARY_NAME, VarargsLibC.class);

        int open(String path, int flags, Object... mode);

        int ioctl(int fd, long request, Object... arg);

        long syscall(long number, Object... args);
    }

    /**
     * Loads JNA's native library and binds libc now, so that a JNA that cannot run here fails at
     * once, as a LinkageError from this constructor (UnsatisfiedLinkError the first time,
     * NoClassDefFoundError after), not at some later call. Bindings turns it into an error.
     */
    public JnaBinding() {
        try {
            Class.forName(LibC.class.getName(), true, JnaBinding.class.getClassLoader());
            Class.forName(VarargsLibC.class.getName(), true, JnaBinding.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new NoClassDefFoundError(e.getMessage());
        }
    }

    @Override
    public String name() {
        return "jna";
    }

    private static ErrnoException failure(String call, String subject) {
        return new ErrnoException(call, Native.getLastError(), subject);
    }

    @Override
    public int open(String path, int flags) {
        Objects.requireNonNull(path, "path");
        int fd = VarargsLibC.INSTANCE.open(path, flags, 0);
        if (fd < 0) {
            throw failure("open", path);
        }
        return fd;
    }

    @Override
    public void close(int fd) {
        if (LibC.close(fd) != 0) {
            throw failure("close", "fd " + fd);
        }
    }

    @Override
    public long pread(int fd, byte[] buf, int length, long offset) {
        Objects.checkFromIndexSize(0, length, buf.length);
        long n = LibC.pread(fd, buf, length, offset);
        if (n < 0) {
            throw failure("pread", "fd " + fd + ", offset 0x" + Long.toHexString(offset));
        }
        return n;
    }

    @Override
    public long read(int fd, byte[] buf, int length) {
        Objects.checkFromIndexSize(0, length, buf.length);
        long n = LibC.read(fd, buf, length);
        if (n < 0) {
            throw failure("read", "fd " + fd);
        }
        return n;
    }

    @Override
    public long pwrite(int fd, byte[] buf, int length, long offset) {
        Objects.checkFromIndexSize(0, length, buf.length);
        long n = LibC.pwrite(fd, buf, length, offset);
        if (n < 0) {
            throw failure("pwrite", "fd " + fd + ", offset 0x" + Long.toHexString(offset));
        }
        return n;
    }

    @Override
    public long ioctl(int fd, long request, long arg) {
        int rc = VarargsLibC.INSTANCE.ioctl(fd, request, arg);
        if (rc == -1) {
            throw failure("ioctl", "fd " + fd + ", request 0x" + Long.toHexString(request));
        }
        return rc;
    }

    @Override
    public long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        Pointer p = LibC.mmap(pointer(addr), length, prot, flags, fd, offset);
        long mapped = Pointer.nativeValue(p);
        if (mapped == -1L) { // MAP_FAILED
            throw failure("mmap", "length " + length);
        }
        return mapped;
    }

    @Override
    public void munmap(long addr, long length) {
        if (LibC.munmap(pointer(addr), length) != 0) {
            throw failure("munmap", "0x" + Long.toHexString(addr));
        }
    }

    @Override
    public void mprotect(long addr, long length, int prot) {
        if (LibC.mprotect(pointer(addr), length, prot) != 0) {
            throw failure("mprotect", "0x" + Long.toHexString(addr));
        }
    }

    private static Pointer pointer(long addr) {
        return addr == 0 ? null : new Pointer(addr);
    }

    @Override
    public long syscall(long number, long... args) {
        if (args.length > SYSCALL_MAX_ARGS) {
            throw new IllegalArgumentException("syscall takes at most 6 arguments, got " + args.length);
        }
        Object[] boxed = new Object[args.length];
        for (int i = 0; i < args.length; i++) {
            boxed[i] = args[i]; // Long: passed as a 64-bit integer, as glibc's va_arg(ap, long) reads it
        }
        long rc = VarargsLibC.INSTANCE.syscall(number, boxed);
        if (rc == -1) {
            throw failure("syscall", Long.toString(number));
        }
        return rc;
    }

    @Override
    public BitSet schedGetaffinity() {
        for (int size = CPU_SET_BYTES; size <= CPU_SET_BYTES_MAX; size *= 2) {
            byte[] mask = new byte[size];
            if (LibC.sched_getaffinity(0, size, mask) == 0) {
                // cpu_set_t: unsigned longs, little-endian, so CPU n is byte n/8, bit n%8.
                return BitSet.valueOf(mask);
            }
            int errno = Native.getLastError();
            if (errno != Errno.EINVAL) {
                throw new ErrnoException("sched_getaffinity", errno, null);
            }
            // EINVAL: the mask is smaller than the kernel's nr_cpu_ids; try a bigger one.
        }
        throw new ErrnoException("sched_getaffinity", Errno.EINVAL, "mask larger than " + CPU_SET_BYTES_MAX + " bytes");
    }

    @Override
    public void schedSetaffinity(BitSet cpus) {
        byte[] bits = cpus.toByteArray();
        int size = Math.max(CPU_SET_BYTES, (bits.length + 7) / 8 * 8);
        byte[] mask = new byte[size];
        System.arraycopy(bits, 0, mask, 0, bits.length);
        if (LibC.sched_setaffinity(0, size, mask) != 0) {
            throw failure("sched_setaffinity", cpus.toString());
        }
    }

    @Override
    public int schedGetcpu() {
        int cpu = LibC.sched_getcpu();
        if (cpu < 0) {
            throw failure("sched_getcpu", null);
        }
        return cpu;
    }

    @Override
    public CpuidRegs cpuid(int leaf, int subleaf) {
        int[] out = new int[4]; // JNA passes a primitive array as a pointer and copies it back
        StubPage.get().cpuid.invokeVoid(new Object[] {leaf, subleaf, out});
        return new CpuidRegs(out[0], out[1], out[2], out[3]);
    }

    @Override
    public long rdtsc() {
        return StubPage.get().rdtsc.invokeLong(new Object[0]);
    }

    @Override
    public Rdtscp rdtscp() {
        int[] aux = new int[1];
        long tsc = StubPage.get().rdtscp.invokeLong(new Object[] {aux});
        return new Rdtscp(tsc, aux[0]);
    }

    @Override
    public long rdpmc(int counter) {
        return StubPage.get().rdpmc.invokeLong(new Object[] {counter});
    }

    @Override
    public byte[] peek(long address, int length) {
        if (length < 0) {
            throw new IllegalArgumentException("negative length " + length);
        }
        return new Pointer(address).getByteArray(0, length);
    }

    /** Where this process's JNA stub page is mapped (maps it if it is not yet). */
    public long codePageAddress() {
        return StubPage.get().address;
    }

    /**
     * Nothing to release per instance: the stub page is process-wide and stays mapped, since
     * unmapping code another thread may be running would crash the JVM.
     */
    @Override
    public void close() {
    }

    /**
     * The process's JNA code page: the same W^X set-up as the FFM twin's (mmap RW, copy,
     * mprotect R+X), published through a volatile field only once it is executable.
     */
    private static final class StubPage {
        private static volatile StubPage instance;

        final long address;
        final Function cpuid;
        final Function rdtsc;
        final Function rdtscp;
        final Function rdpmc;

        private StubPage(long address) {
            this.address = address;
            cpuid = Function.getFunction(new Pointer(address + MachineCode.Stub.CPUID.offset()));
            rdtsc = Function.getFunction(new Pointer(address + MachineCode.Stub.RDTSC.offset()));
            rdtscp = Function.getFunction(new Pointer(address + MachineCode.Stub.RDTSCP.offset()));
            rdpmc = Function.getFunction(new Pointer(address + MachineCode.Stub.RDPMC.offset()));
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

        private static long map() {
            MachineCode.requireX86_64();
            JnaBinding libc = new JnaBinding();
            long size = MachineCode.PAGE_SIZE;
            long addr = libc.mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            try {
                byte[] image = MachineCode.pageImage();
                new Pointer(addr).write(0, image, 0, image.length);
                libc.mprotect(addr, size, PROT_READ | PROT_EXEC);
                return addr;
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
