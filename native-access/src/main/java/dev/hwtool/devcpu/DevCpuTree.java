package dev.hwtool.devcpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidResult;
import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.bind.Errno;
import dev.hwtool.ffm.fuse.FuseFilesystem;
import dev.hwtool.ffm.fuse.FuseMount;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * A simulated platform served as a /dev/cpu tree: {@code DIR/N/msr} and {@code DIR/N/cpuid} for
 * every CPU of the platform, through FUSE ({@link FuseMount}), with the semantics of the kernel's
 * drivers, so any program that reads or writes /dev/cpu (rdmsr, cpuid, a C program) runs
 * unchanged against the simulator. It is served through the contract alone (the platform's
 * {@link Platform#msr()} and {@link Platform#cpuid()}), so any simulated platform will do: the
 * simulator's, or a test double of one's own. It lives here, beside the FUSE binding, so that
 * the simulator has no native code of its own.
 *
 * <p>{@code msr} (arch/x86/kernel/msr.c, msr_read()/msr_write()): the file offset, truncated to
 * 32 bits ({@code u32 reg = *ppos}), is the register; a transfer is a multiple of 8 bytes, each 8
 * bytes one rdmsr/wrmsr of that same register (little-endian EDX:EAX); another size is EINVAL; a
 * #GP (an unknown register, a reserved bit, a read-only register) is EIO; a transfer that faults
 * after its first 8 bytes returns the bytes done ({@code bytes ? bytes : err}).
 *
 * <p>{@code cpuid} (arch/x86/kernel/cpuid.c, cpuid_read()): a read is a multiple of 16 bytes;
 * each 16 bytes are EAX, EBX, ECX, EDX of CPUID with EAX = the low and ECX = the high 32 bits of
 * the position, which advances by one per record; another size is EINVAL. The driver has no write
 * operation, so a write is EINVAL (vfs_write without FMODE_CAN_WRITE).
 *
 * <p>One machine: every access goes to the platform's {@link Platform#msr()} and
 * {@link Platform#cpuid()}, the same register file, catalog rules and PMI/freeze logic
 * that the platform's Java users see. Accesses are serialised on the platform object, so a
 * Java test that inspects it inside {@code synchronized (platform)} sees no half-done access.
 *
 * <p>Close the tree before the platform: once the platform is closed, every access through a
 * tree still mounted fails with EIO.
 *
 * <p>Access is the mounting user's (FUSE's default without allow_other); the drivers'
 * CAP_SYS_RAWIO check on open is not repeated.
 */
public final class DevCpuTree implements AutoCloseable {

    private final FuseMount mount;

    private DevCpuTree(FuseMount mount) {
        this.mount = mount;
    }

    /**
     * Mounts the platform's CPUs at {@code dir} (an existing empty directory).
     *
     * @throws HwException BAD_INPUT for a hardware platform (its CPUs have their /dev/cpu, and a
     *                     second tree would hand its registers to whoever reaches the mount);
     *                     the causes of {@link FuseMount#mount}
     */
    public static DevCpuTree mount(Platform platform, Path dir) {
        return mount(platform, dir, a -> { });
    }

    /**
     * Mounts the platform's CPUs at {@code dir}; {@code trace} sees every access, in order, on
     * the loop thread.
     *
     * @throws HwException as {@link FuseMount#mount} does
     */
    public static DevCpuTree mount(Platform platform, Path dir, Consumer<DevCpuAccess> trace) {
        return mount(platform, dir, trace, false);
    }

    /**
     * As {@link #mount(Platform, Path, Consumer)}; with {@code unmountIfKilled} the tree is
     * unmounted even if this process is killed (see {@link FuseMount#mount(Path, FuseFilesystem, String, boolean)}:
     * a helper process per mount until this process exits, so meant for command-line use).
     */
    public static DevCpuTree mount(Platform platform, Path dir, Consumer<DevCpuAccess> trace, boolean unmountIfKilled) {
        if (platform.kind() == Platform.Kind.HARDWARE) {
            throw new HwException(Cause.BAD_INPUT, "a /dev/cpu tree serves a simulated platform, not this machine ("
                    + platform.description() + "): its CPUs have /dev/cpu already", "open a simulated platform");
        }
        return new DevCpuTree(FuseMount.mount(dir, new Tree(platform, trace), fsName(platform), unmountIfKilled));
    }

    /** The name /proc/mounts shows: "hwtool-" and the platform's CPUID source ("hwtool-sim"). */
    static String fsName(Platform platform) {
        return "hwtool-" + platform.cpuid().name().replaceAll("[^A-Za-z0-9._:-]", "_");
    }

    public Path directory() {
        return mount.directory();
    }

    /** Whether the tree is still mounted and served. */
    public boolean serving() {
        return mount.serving();
    }

    /** Blocks until the tree is unmounted, from here or from outside (fusermount3 -u). */
    public void awaitUnmounted() throws InterruptedException {
        mount.awaitUnmounted();
    }

    /** Unmounts the tree; the platform stays open. */
    @Override
    public void close() {
        mount.close();
    }

    /** The FUSE side: the tree's shape and the drivers' read/write rules. */
    private static final class Tree implements FuseFilesystem {
        private static final int EINVAL = Errno.EINVAL;
        private static final int EIO = Errno.EIO;

        private final Platform platform;
        private final Consumer<DevCpuAccess> trace;
        private final Map<String, Node> nodes = new TreeMap<>();

        Tree(Platform platform, Consumer<DevCpuAccess> trace) {
            this.platform = platform;
            this.trace = trace;
            List<String> cpus = new ArrayList<>();
            for (int cpu : platform.cpuid().cpus()) {
                cpus.add(String.valueOf(cpu));
                nodes.put("/" + cpu, new Directory(List.of("cpuid", "msr")));
                // The kernel's nodes are crw------- root; a regular file of mode 0600 here.
                nodes.put("/" + cpu + "/msr", new File(0600, 0));
                nodes.put("/" + cpu + "/cpuid", new File(0600, 0));
            }
            nodes.put("/", new Directory(cpus));
        }

        @Override
        public Node lookup(String path) {
            return nodes.get(path);
        }

        private record Target(int cpu, DevCpuAccess.Kind kind) {
        }

        private static Target target(String path) {
            int slash = path.indexOf('/', 1);
            int cpu = Integer.parseInt(path.substring(1, slash));
            return new Target(cpu, path.endsWith("/msr") ? DevCpuAccess.Kind.MSR : DevCpuAccess.Kind.CPUID);
        }

        @Override
        public int read(String path, byte[] buf, long offset, Caller caller) {
            Target t = target(path);
            synchronized (platform) {
                return t.kind() == DevCpuAccess.Kind.MSR ? msrRead(t.cpu(), buf, offset, caller) : cpuidRead(t.cpu(), buf, offset, caller);
            }
        }

        @Override
        public int write(String path, byte[] data, long offset, Caller caller) {
            Target t = target(path);
            synchronized (platform) {
                if (t.kind() == DevCpuAccess.Kind.CPUID) {
                    record(caller, t.cpu(), DevCpuAccess.Kind.CPUID, DevCpuAccess.Op.WRITE, offset & 0xFFFF_FFFFL,
                            (int) (offset >>> 32), null, null, EINVAL);
                    return -EINVAL;
                }
                return msrWrite(t.cpu(), data, offset, caller);
            }
        }

        private int msrRead(int cpu, byte[] buf, long offset, Caller caller) {
            int reg = (int) offset;
            if (buf.length % 8 != 0) {
                record(caller, cpu, DevCpuAccess.Kind.MSR, DevCpuAccess.Op.READ, reg, 0, null, null, EINVAL);
                return -EINVAL;
            }
            ByteBuffer out = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
            int bytes = 0;
            int err = 0;
            for (int left = buf.length; left > 0; left -= 8) {
                try {
                    long v = platform.msr().read(cpu, reg);
                    out.putLong(bytes, v);
                    record(caller, cpu, DevCpuAccess.Kind.MSR, DevCpuAccess.Op.READ, reg, 0, v, null, 0);
                    bytes += 8;
                } catch (HwException e) {
                    record(caller, cpu, DevCpuAccess.Kind.MSR, DevCpuAccess.Op.READ, reg, 0, null, null, EIO);
                    err = -EIO;
                    break;
                }
            }
            return bytes > 0 ? bytes : err;
        }

        private int msrWrite(int cpu, byte[] data, long offset, Caller caller) {
            int reg = (int) offset;
            if (data.length % 8 != 0) {
                record(caller, cpu, DevCpuAccess.Kind.MSR, DevCpuAccess.Op.WRITE, reg, 0, null, null, EINVAL);
                return -EINVAL;
            }
            ByteBuffer in = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
            int bytes = 0;
            int err = 0;
            for (int left = data.length; left > 0; left -= 8) {
                long v = in.getLong(bytes);
                try {
                    platform.msr().write(cpu, reg, v);
                    record(caller, cpu, DevCpuAccess.Kind.MSR, DevCpuAccess.Op.WRITE, reg, 0, v, null, 0);
                    bytes += 8;
                } catch (HwException e) {
                    record(caller, cpu, DevCpuAccess.Kind.MSR, DevCpuAccess.Op.WRITE, reg, 0, v, null, EIO);
                    err = -EIO;
                    break;
                }
            }
            return bytes > 0 ? bytes : err;
        }

        private int cpuidRead(int cpu, byte[] buf, long offset, Caller caller) {
            if (buf.length % 16 != 0) {
                record(caller, cpu, DevCpuAccess.Kind.CPUID, DevCpuAccess.Op.READ, offset & 0xFFFF_FFFFL,
                        (int) (offset >>> 32), null, null, EINVAL);
                return -EINVAL;
            }
            ByteBuffer out = ByteBuffer.wrap(buf).order(ByteOrder.LITTLE_ENDIAN);
            long pos = offset;
            int bytes = 0;
            for (int left = buf.length; left > 0; left -= 16) {
                int leaf = (int) pos;
                int subleaf = (int) (pos >>> 32);
                CpuidResult r = platform.cpuid().cpuid(cpu, leaf, subleaf);
                out.putInt(bytes, r.eax()).putInt(bytes + 4, r.ebx()).putInt(bytes + 8, r.ecx()).putInt(bytes + 12, r.edx());
                record(caller, cpu, DevCpuAccess.Kind.CPUID, DevCpuAccess.Op.READ, Integer.toUnsignedLong(leaf), subleaf,
                        null, r, 0);
                bytes += 16;
                pos++;
            }
            return bytes;
        }

        private void record(Caller caller, int cpu, DevCpuAccess.Kind kind, DevCpuAccess.Op op, long reg, int subleaf,
                            Long value, CpuidResult regs, int errno) {
            String result = switch (errno) {
                case 0 -> "ok";
                case Errno.EIO -> "EIO";
                case Errno.EINVAL -> "EINVAL";
                default -> "errno " + errno;
            };
            trace.accept(new DevCpuAccess(Instant.now(), caller.pid(), cpu, kind, op, kind == DevCpuAccess.Kind.MSR
                    ? Integer.toUnsignedLong((int) reg) : reg, subleaf, value, regs, result));
        }
    }
}
