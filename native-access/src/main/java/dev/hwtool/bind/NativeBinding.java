package dev.hwtool.bind;

import dev.hwtool.arch.cpuid.CpuidRegs;

import java.util.BitSet;

/**
 * The small set of libc calls and machine-code stubs hwtool stands on. Two twins implement
 * it: {@code dev.hwtool.ffm.FfmBinding} (the default, Java's FFM API) and
 * {@code dev.hwtool.jna.JnaBinding}. Both must give identical results; a failing call throws
 * {@link ErrnoException} with the errno the call left, and no policy is decided here.
 *
 * <p>Addresses of native memory are plain {@code long}s so that neither twin's types leak.
 */
public interface NativeBinding extends AutoCloseable {

    // open(2) flags and mmap(2) constants, x86-64 Linux (asm-generic/fcntl.h, mman-common.h).
    int O_RDONLY = 0;
    int O_WRONLY = 1;
    int O_RDWR = 2;
    int O_CLOEXEC = 0x80000;
    int PROT_NONE = 0;
    int PROT_READ = 1;
    int PROT_WRITE = 2;
    int PROT_EXEC = 4;
    int MAP_SHARED = 0x01;
    int MAP_PRIVATE = 0x02;
    int MAP_ANONYMOUS = 0x20;

    /** {@code ffm} or {@code jna}. */
    String name();

    int open(String path, int flags);

    void close(int fd);

    /** pread(2): returns the bytes read (may be short). */
    long pread(int fd, byte[] buf, int length, long offset);

    /**
     * read(2) at the file position: returns the bytes read (may be short; 0 at end of file). Files
     * that have no position, such as perf event fds, refuse pread with ESPIPE and need this.
     */
    long read(int fd, byte[] buf, int length);

    /**
     * read(2) of an fd whose read is short and never blocks, such as a perf event's counter
     * (the hot path of self-monitoring): the same result and errors as {@link #read}. The FFM
     * binding makes it a critical downcall writing straight into {@code buf}, which saves the
     * thread-state transition and the copy. Never pass an fd that can block (a pipe, a
     * terminal): the JVM cannot reach a safepoint while a critical call runs.
     */
    default long readNonBlocking(int fd, byte[] buf, int length) {
        return read(fd, buf, length);
    }

    /** pwrite(2): returns the bytes written. */
    long pwrite(int fd, byte[] buf, int length, long offset);

    /** ioctl(2) with an integer or pointer-sized argument. */
    long ioctl(int fd, long request, long arg);

    long mmap(long addr, long length, int prot, int flags, int fd, long offset);

    void munmap(long addr, long length);

    void mprotect(long addr, long length, int prot);

    /** syscall(2): every argument is passed as a C long, as glibc's va_arg(ap, long) reads it. */
    long syscall(long number, long... args);

    /** sched_getaffinity(0, ...): the calling thread's allowed CPUs. */
    BitSet schedGetaffinity();

    /** sched_setaffinity(0, ...): restrict the calling thread to {@code cpus}. */
    void schedSetaffinity(BitSet cpus);

    /** sched_getcpu(3): the CPU the calling thread runs on now. */
    int schedGetcpu();

    /** Executes CPUID on whatever CPU the calling thread is on. Pin first for a given CPU. */
    CpuidRegs cpuid(int leaf, int subleaf);

    /** Executes RDTSC. */
    long rdtsc();

    /** Executes RDTSCP: the TSC and IA32_TSC_AUX (Linux stores {@code cpu | node << 12} there). */
    Rdtscp rdtscp();

    record Rdtscp(long tsc, int aux) {
    }

    /**
     * Executes RDPMC with ECX = {@code counter}. RDPMC faults (#GP, which kills the JVM) unless the
     * kernel has set CR4.PCE for this task, which it shows only through a perf mapping's user page:
     * call this only after {@code dev.hwtool.arch.perf.abi.PerfUserPage.Snapshot#rdpmcAllowed()} said
     * yes for that mapping (its one caller, dev.hwtool.linux.perf.PerfSelfMonitor, does).
     */
    long rdpmc(int counter);

    /** Copies {@code length} bytes of native memory at {@code address} into a new array. */
    byte[] peek(long address, int length);

    /**
     * Releases what this binding instance owns. The stub code page is per process and stays
     * mapped for its lifetime: unmapping code another thread may be executing would crash the JVM.
     */
    @Override
    void close();
}
