package dev.hwtool.linux;

import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.MissingNode;
import dev.hwtool.caps.CpuidReading;
import dev.hwtool.io.CpuList;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * CPUID answered by the kernel's cpuid driver (arch/x86/kernel/cpuid.c): {@code pread} of 16
 * bytes from {@code /dev/cpu/N/cpuid} at offset {@code leaf | subleaf << 32} returns
 * {@code struct cpuid_regs} {eax, ebx, ecx, edx}, little-endian, executed on CPU N by the kernel.
 * No pinning is needed. Each CPU's node is opened on first use and kept open until {@link #close()}.
 */
public final class DeviceCpuidSource implements CpuidReading, AutoCloseable {

    /** Where devtmpfs is mounted on a normal system. */
    public static final Path DEV = Path.of("/dev");

    /** sizeof(struct cpuid_regs); the driver rejects reads that are not a multiple of it (EINVAL). */
    private static final int REGS_BYTES = 16;

    private static final String REMEDY_ACCESS =
            "run as root, or grant read access to /dev/cpu/*/cpuid (e.g. chmod o+r, or a udev rule)";

    private final NativeBinding binding;
    private final Path devRoot;
    private final Path sysfsRoot;
    private final Supplier<LinuxFacts> facts;
    private final Map<Integer, Integer> fds = new ConcurrentHashMap<>();
    private boolean closed;

    public DeviceCpuidSource(NativeBinding binding) {
        this(binding, DEV, DeviceMsrAccess.SYSTEM);
    }

    /**
     * @param devRoot    where the nodes live: {@code <devRoot>/cpu/N/cpuid}
     * @param systemRoot the directory holding {@code sys/} and {@code proc/} ("/" on a real system),
     *                   read for the online CPUs and, when a node is missing, to explain why
     */
    public DeviceCpuidSource(NativeBinding binding, Path devRoot, Path systemRoot) {
        this.binding = Objects.requireNonNull(binding, "binding");
        this.devRoot = Objects.requireNonNull(devRoot, "devRoot");
        Objects.requireNonNull(systemRoot, "systemRoot");
        this.sysfsRoot = systemRoot.resolve("sys");
        this.facts = () -> LinuxProbe.probe(systemRoot);
    }

    /** {@code <devRoot>/cpu/<cpu>/cpuid}, the node cpuid.c creates for each CPU (cpuid_devnode). */
    public static Path node(Path devRoot, int cpu) {
        return devRoot.resolve("cpu").resolve(Integer.toString(cpu)).resolve("cpuid");
    }

    @Override
    public String name() {
        return "device";
    }

    @Override
    public String description() {
        return devRoot.resolve("cpu/N/cpuid") + " (" + binding.name() + " binding)";
    }

    /** The online CPUs. */
    @Override
    public List<Integer> cpus() {
        return CpuList.online(sysfsRoot);
    }

    @Override
    public CpuidRegs regs(int cpu, int leaf, int subleaf) {
        Path node = node(devRoot, cpu);
        if (cpu < 0) {
            throw NoSuchCpu.of(cpu, sysfsRoot, "", null);
        }
        if (subleaf < 0) {
            // The offset carries the subleaf in bits 63:32 and must be non-negative (no_seek_end_llseek).
            throw new HwException(Cause.UNSUPPORTED, "subleaf 0x" + Integer.toHexString(subleaf)
                    + " cannot be read through " + node + ": the driver takes subleaves below 0x80000000 only",
                    "use the CPUID instruction source for this subleaf");
        }
        int fd = fd(cpu, node);
        long offset = Integer.toUnsignedLong(leaf) | (long) subleaf << 32;
        byte[] regs = new byte[REGS_BYTES];
        long n;
        try {
            n = binding.pread(fd, regs, REGS_BYTES, offset);
        } catch (ErrnoException e) {
            throw failure("pread", e.errno(), node, cpu, e);
        }
        if (n != REGS_BYTES) {
            throw new HwException(Cause.OS_ERROR, "pread " + node + " at offset 0x" + Long.toHexString(offset)
                    + " returned " + n + " of " + REGS_BYTES + " bytes");
        }
        return CpuidRegs.fromLittleEndian(regs, 0);
    }

    private int fd(int cpu, Path node) {
        Integer fd = fds.get(cpu);
        if (fd != null) {
            return fd;
        }
        synchronized (this) {
            if (closed) {
                throw new IllegalStateException("DeviceCpuidSource is closed");
            }
            fd = fds.get(cpu);
            if (fd == null) {
                fd = open(cpu, node);
                fds.put(cpu, fd);
            }
            return fd;
        }
    }

    private int open(int cpu, Path node) {
        try {
            return binding.open(node.toString(), NativeBinding.O_RDONLY | NativeBinding.O_CLOEXEC);
        } catch (ErrnoException e) {
            if (e.errno() == Errno.ENOENT) {
                throw missing(cpu, node, e);
            }
            throw failure("open", e.errno(), node, cpu, e);
        }
    }

    /**
     * ENOENT: the node is missing. With no /dev/cpu/N and the CPU not online, the CPU is the
     * problem; otherwise {@link MissingNode} (shared with the msr driver's errors) tells a driver
     * that is not loaded from nodes that are not in this /dev (a container started without them).
     */
    private HwException missing(int cpu, Path node, ErrnoException e) {
        String prefix = "open " + node + ": " + Errno.describe(e.errno()) + ": ";
        Path cpuDir = node.getParent();
        boolean cpuDirPresent = Files.isDirectory(cpuDir);
        if (!cpuDirPresent && !CpuList.online(sysfsRoot).contains(cpu)) {
            return NoSuchCpu.of(cpu, sysfsRoot, prefix, e);
        }
        LinuxFacts f = facts.get();
        MissingNode.Explanation x = MissingNode.forCpu(f, f.cpuidDriver(), cpu, cpuDir, cpuDirPresent);
        return new HwException(x.cause(), prefix + x.why(), x.remedy(), e);
    }

    /**
     * The cause of a failed open or pread of a cpuid node, by errno (cpuid.c cpuid_open and
     * cpuid_read): ENXIO for a CPU that is absent or offline, EIO for a CPU without CPUID,
     * EACCES from the node's file mode; anything else is a plain OS error.
     */
    HwException failure(String call, int errno, Path node, int cpu, Throwable underlying) {
        String prefix = call + " " + node + ": " + Errno.describe(errno);
        return switch (errno) {
            case Errno.ENXIO -> NoSuchCpu.of(cpu, sysfsRoot, prefix + ": ", underlying);
            case Errno.EACCES -> new HwException(Cause.PERMISSION_DENIED, prefix, REMEDY_ACCESS, underlying);
            case Errno.EIO -> new HwException(Cause.UNSUPPORTED,
                    prefix + ": CPU " + cpu + " has no CPUID instruction", null, underlying);
            default -> new HwException(Cause.OS_ERROR, prefix, null, underlying);
        };
    }

    /** Closes every node this source opened. Further {@link #cpuid} calls throw IllegalStateException. */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        List<ErrnoException> errors = new ArrayList<>();
        for (int fd : fds.values()) {
            try {
                binding.close(fd);
            } catch (ErrnoException e) {
                errors.add(e);
            }
        }
        fds.clear();
        if (!errors.isEmpty()) {
            HwException failed = new HwException(Cause.OS_ERROR, errors.getFirst().getMessage(), null, errors.getFirst());
            errors.stream().skip(1).forEach(failed::addSuppressed);
            throw failed;
        }
    }
}
