package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.MsrAccess;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.MsrAccessException.Operation;
import dev.hwtool.linux.MsrErrors.Request;

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
public final class DeviceMsrAccess implements MsrAccess {

    /** Where devtmpfs is mounted on a normal system. */
    public static final Path DEV = Path.of("/dev");

    /** The root under which /sys and /proc are read on a normal system. */
    public static final Path SYSTEM = Path.of("/");

    /** msr.c reads and writes whole 8-byte registers; other counts are EINVAL. */
    private static final int MSR_BYTES = 8;

    private final NativeBinding binding;
    private final Path devRoot;
    private final Path sysfsRoot;
    private final MsrErrors errors;
    private final Map<Integer, Handle> handles = new ConcurrentHashMap<>();
    private boolean closed;

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
        this.errors = new MsrErrors(devRoot, sysfsRoot, () -> LinuxProbe.probe(systemRoot));
    }

    /** {@code <devRoot>/cpu/<cpu>/msr}. */
    public static Path node(Path devRoot, int cpu) {
        return MsrErrors.node(devRoot, cpu);
    }

    public String description() {
        return devRoot.resolve("cpu/N/msr") + " (" + binding.name() + " binding)";
    }

    /** The online CPUs, from {@code <systemRoot>/sys/devices/system/cpu/online}. */
    @Override
    public List<Integer> cpus() {
        return CpuList.online(sysfsRoot);
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
        Request r = Request.read(cpu, msr);
        Handle h = handle(cpu);
        synchronized (h) {
            int fd = h.open(r);
            byte[] buf = new byte[MSR_BYTES];
            long n;
            try {
                n = binding.pread(fd, buf, MSR_BYTES, offset(msr));
            } catch (ErrnoException e) {
                throw errors.of(r, Operation.PREAD, e.errno(), e);
            }
            requireWhole(r, "pread", n);
            return littleEndian(buf);
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
            byte[] buf = new byte[MSR_BYTES];
            for (int i = 0; i < MSR_BYTES; i++) {
                buf[i] = (byte) (value >>> (8 * i));
            }
            long n;
            try {
                n = binding.pwrite(fd, buf, MSR_BYTES, offset(msr));
            } catch (ErrnoException e) {
                throw errors.of(r, Operation.PWRITE, e.errno(), e);
            }
            requireWhole(r, "pwrite", n);
        }
    }

    /** msr.c takes the register from the low 32 bits of the position: the index, zero-extended. */
    static long offset(int msr) {
        return Integer.toUnsignedLong(msr);
    }

    private static long littleEndian(byte[] b) {
        long v = 0;
        for (int i = MSR_BYTES - 1; i >= 0; i--) {
            v = v << 8 | (b[i] & 0xff);
        }
        return v;
    }

    private void requireWhole(Request r, String call, long n) {
        if (n != MSR_BYTES) {
            throw new HwException(Cause.OS_ERROR, r.failed() + ": " + call + " " + node(devRoot, r.cpu())
                    + " at offset 0x" + Long.toHexString(offset(r.msr())) + " transferred " + n + " of "
                    + MSR_BYTES + " bytes");
        }
    }

    private Handle handle(int cpu) {
        Handle h = handles.get(cpu);
        if (h != null) {
            return h;
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("DeviceMsrAccess is closed");
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
        int readFd = -1;
        int writeFd = -1;
        boolean retired;

        Handle(int cpu) {
            this.cpu = cpu;
        }

        /** The descriptor for {@code r}, opened now if need be. Caller holds this handle's monitor. */
        int open(Request r) {
            if (retired) {
                throw new IllegalStateException("DeviceMsrAccess is closed");
            }
            int fd = r.write() ? writeFd : readFd;
            if (fd >= 0) {
                return fd;
            }
            int flags = (r.write() ? NativeBinding.O_WRONLY : NativeBinding.O_RDONLY) | NativeBinding.O_CLOEXEC;
            try {
                fd = binding.open(node(devRoot, cpu).toString(), flags);
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
