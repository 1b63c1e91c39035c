package dev.hwtool.linux;

import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.arch.msr.CpuContext;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.io.CpuList;
import dev.hwtool.linux.MsrAccessException.Operation;
import dev.hwtool.linux.MsrErrors.Request;
import dev.hwtool.msr.MsrContexts;
import dev.hwtool.msr.MsrMachine;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * MSRs through the kernel's msr driver (arch/x86/kernel/msr.c): {@code pread}/{@code pwrite} of 8
 * bytes on {@code /dev/cpu/N/msr} at file offset = MSR index, little-endian (lo then hi dword),
 * executed on CPU N by the kernel. Each CPU's node is opened on first use with the access the call
 * needs, as msr-tools does (rdmsr.c O_RDONLY, wrmsr.c O_WRONLY): a read opens it read-only, so a
 * node the file mode or a read-only mount lets this user read but not write can still be read;
 * a write opens a second, write-only descriptor. Both stay open until {@link #close()}. One lock per
 * CPU: different CPUs are served in parallel (as {@code rdmsr -a} wants), and close() never
 * closes a descriptor under a running call.
 *
 * <p>Every failed call throws {@link MsrAccessException}: its {@link Cause} is told apart with
 * what the kernel shows in /sys and /proc (lockdown, msr.allow_writes, CapEff, user namespace).
 */
public final class DeviceMsrAccess implements MsrAccess, MsrMachine {

    /** Where devtmpfs is mounted on a normal system. */
    public static final Path DEV = Path.of("/dev");

    /** The root under which /sys and /proc are read on a normal system. */
    public static final Path SYSTEM = Path.of("/");

    /** msr.c reads and writes whole 8-byte registers; other counts are EINVAL. */
    private static final int MSR_BYTES = 8;

    /** The register as msr.c copies it out: a little-endian u64 (lo dword, then hi). */
    private static final VarHandle LE64 = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    /** "0-255\n" and the like fit at once, in the binding's per-thread scratch (no arena per read). */
    private static final int ONLINE_CHUNK = 64;
    private static final int ONLINE_LIMIT = 1 << 16;

    private final NativeBinding binding;
    private final Path devRoot;
    private final Path sysfsRoot;
    /** {@code <devRoot>/cpu/}, to which a handle appends {@code N/msr}. */
    private final String nodePrefix;
    private final String onlineFile;
    private final MsrErrors errors;
    private final Map<Integer, Handle> handles = new ConcurrentHashMap<>();
    private boolean closed;
    /** The careful write path's view of each CPU, from the CPUID instruction on this binding. */
    private MsrContexts contexts;

    /** This system's /dev/cpu/N/msr, on {@code binding}. */
    public DeviceMsrAccess(NativeBinding binding) {
        this(binding, DEV, SYSTEM);
    }

    /**
     * @param devRoot    where the nodes live: {@code <devRoot>/cpu/N/msr}
     * @param systemRoot the directory holding {@code sys/} and {@code proc/} ("/" on a real system),
     *                   read for the online CPUs and, when a call fails, to explain why
     */
    public DeviceMsrAccess(NativeBinding binding, Path devRoot, Path systemRoot) {
        this.binding = Objects.requireNonNull(binding, "binding");
        this.devRoot = Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(systemRoot, "systemRoot");
        this.sysfsRoot = systemRoot.resolve("sys");
        this.nodePrefix = devRoot.resolve("cpu") + "/";
        this.onlineFile = CpuList.onlineFile(sysfsRoot).toString();
        this.errors = new MsrErrors(devRoot, sysfsRoot, () -> LinuxProbe.probe(systemRoot));
    }

    /** {@code <devRoot>/cpu/<cpu>/msr}. */
    public static Path node(Path devRoot, int cpu) {
        return MsrErrors.node(devRoot, cpu);
    }

    /**
     * The catalog's view of {@code cpu} for {@link MsrAccess#write}: CPUID by the instruction
     * on this access's own binding (so a JNA platform checks with JNA too), cached per CPU.
     */
    @Override
    public synchronized CpuContext context(int cpu) {
        if (contexts == null) {
            contexts = new MsrContexts(new InstructionCpuidSource(binding), this);
        }
        return contexts.of(cpu);
    }

    @Override
    public String backend() {
        return "hw";
    }

    /** This machine's registers: CPUID by the instruction on this binding, hwtool's own journal. */
    @Override
    public Origin origin() {
        return new Origin(backend(), new InstructionCpuidSource(binding), journal().directory());
    }

    public String description() {
        return devRoot.resolve("cpu/N/msr") + " (" + binding.name() + " binding)";
    }

    /**
     * The online CPUs, from {@code <systemRoot>/sys/devices/system/cpu/online}, read through the
     * binding (open, read to the end, close: about what {@code rdmsr -a} adds to its reads) rather
     * than through an NIO channel, which costs several times as much; if that fails,
     * {@link CpuList#online(Path)} tries again and explains.
     */
    @Override
    public List<Integer> cpus() {
        StringBuilder text = new StringBuilder();
        try {
            int fd = binding.open(onlineFile, NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
            try {
                // A sysfs attribute shows at most a page (fs/sysfs/file.c); the bound only stops a
                // file that is not one from being read forever.
                byte[] chunk = new byte[ONLINE_CHUNK];
                for (long k; (k = binding.read(fd, chunk, chunk.length)) > 0; ) {
                    text.append(new String(chunk, 0, (int) k, StandardCharsets.US_ASCII));
                    if (text.length() > ONLINE_LIMIT) {
                        return CpuList.online(sysfsRoot);
                    }
                }
            } finally {
                binding.close(fd);
            }
        } catch (ErrnoException e) {
            return CpuList.online(sysfsRoot);
        }
        return CpuList.parse(text.toString());
    }

    /**
     * RDMSR on {@code cpu}: pread of 8 bytes at offset {@code msr} taken as unsigned, so
     * 0xC0000080 (IA32_EFER) is offset 0xC0000080, never a negative number.
     *
     * @throws MsrAccessException when open or pread fails
     * @throws HwException        OS_ERROR when pread returns fewer than 8 bytes
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public long read(int cpu, int msr) {
        Handle h = handle(cpu);
        synchronized (h) {
            // The request (the errors' subject) is built only when one is needed.
            int fd = h.readFd >= 0 && !h.retired ? h.readFd : h.open(Request.read(cpu, msr));
            byte[] buf = h.buf;
            long n;
            try {
                n = binding.pread(fd, buf, MSR_BYTES, offset(msr));
            } catch (ErrnoException e) {
                throw errors.of(Request.read(cpu, msr), Operation.PREAD, e.errno(), e);
            }
            if (n != MSR_BYTES) {
                throw shortTransfer(Request.read(cpu, msr), "pread", n);
            }
            return (long) LE64.get(buf, 0);
        }
    }

    /**
     * WRMSR on {@code cpu}: pwrite of {@code value} as 8 little-endian bytes at offset {@code msr}
     * taken as unsigned.
     *
     * @throws MsrAccessException when open (write-only) or pwrite fails
     * @throws HwException        OS_ERROR when pwrite writes fewer than 8 bytes
     * @throws IllegalStateException after {@link #close()}
     */
    @Override
    public void write(int cpu, int msr, long value) {
        Request r = Request.write(cpu, msr, value);
        Handle h = handle(cpu);
        synchronized (h) {
            int fd = h.open(r);
            byte[] buf = h.buf;
            LE64.set(buf, 0, value);
            long n;
            try {
                n = binding.pwrite(fd, buf, MSR_BYTES, offset(msr));
            } catch (ErrnoException e) {
                throw errors.of(r, Operation.PWRITE, e.errno(), e);
            }
            if (n != MSR_BYTES) {
                throw shortTransfer(r, "pwrite", n);
            }
        }
    }

    /** msr.c takes the register from the low 32 bits of the position: the index, zero-extended. */
    static long offset(int msr) {
        return Integer.toUnsignedLong(msr);
    }

    private HwException shortTransfer(Request r, String call, long n) {
        return new HwException(Cause.OS_ERROR, r.failed() + ": " + call + " " + node(devRoot, r.cpu())
                + " at offset 0x" + Long.toHexString(offset(r.msr())) + " transferred " + n + " of "
                + MSR_BYTES + " bytes");
    }

    private Handle handle(int cpu) {
        Handle h = handles.get(cpu);
        if (h != null) {
            return h;
        }
        synchronized (this) {
            if (closed) {
                throw HwException.closed("MsrAccess", "/dev/cpu/N/msr, closed");
            }
            return handles.computeIfAbsent(cpu, Handle::new);
        }
    }

    /**
     * One CPU's node: a read-only descriptor for reads and a write-only one for writes, each
     * opened on first need. Guarded by its own monitor. An open that fails is not remembered: the
     * next call tries again (the module may have been loaded meanwhile).
     */
    private final class Handle {
        final int cpu;
        /** {@code <devRoot>/cpu/N/msr}, built once. */
        final String path;
        /** The 8 bytes of a transfer, reused: calls on this CPU hold the monitor. */
        final byte[] buf = new byte[MSR_BYTES];
        int readFd = -1;
        int writeFd = -1;
        boolean retired;

        Handle(int cpu) {
            this.cpu = cpu;
            this.path = nodePrefix + cpu + "/msr";
        }

        /** The descriptor for {@code r}, opened now if need be. Caller holds this handle's monitor. */
        int open(Request r) {
            if (retired) {
                throw HwException.closed("MsrAccess", "/dev/cpu/N/msr, closed");
            }
            int fd = r.write() ? writeFd : readFd;
            if (fd >= 0) {
                return fd;
            }
            int flags = (r.write() ? NativeBinding.O_WRONLY : NativeBinding.O_RDONLY) | NativeBinding.O_CLOEXEC;
            try {
                fd = binding.open(path, flags);
            } catch (ErrnoException e) {
                throw errors.of(r, Operation.OPEN, e.errno(), e);
            }
            if (r.write()) {
                writeFd = fd;
            } else {
                readFd = fd;
            }
            return fd;
        }

        /** Closes the descriptors, if any; no call can use this handle afterwards. Caller holds the monitor. */
        void retire() {
            retired = true;
            int r = readFd;
            int w = writeFd;
            readFd = -1;
            writeFd = -1;
            ErrnoException failed = null;
            for (int f : new int[] {r, w}) {
                if (f >= 0) {
                    try {
                        binding.close(f);
                    } catch (ErrnoException e) {
                        failed = failed == null ? e : failed;
                    }
                }
            }
            if (failed != null) {
                throw failed;
            }
        }
    }

    /** Closes every node this access opened. Further calls throw IllegalStateException. */
    @Override
    public void close() {
        List<Handle> all;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            all = new ArrayList<>(handles.values());
        }
        List<ErrnoException> failures = new ArrayList<>();
        for (Handle h : all) {
            synchronized (h) {
                try {
                    h.retire();
                } catch (ErrnoException e) {
                    failures.add(e);
                }
            }
        }
        handles.clear();
        if (!failures.isEmpty()) {
            HwException failed = new HwException(Cause.OS_ERROR, failures.getFirst().getMessage(), null,
                    failures.getFirst());
            failures.stream().skip(1).forEach(failed::addSuppressed);
            throw failed;
        }
    }
}
