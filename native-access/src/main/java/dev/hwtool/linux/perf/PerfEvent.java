package dev.hwtool.linux.perf;

import dev.hwtool.arch.perf.abi.PerfCounts;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfFormat;
import dev.hwtool.arch.perf.abi.PerfIoctl;
import dev.hwtool.arch.perf.abi.PerfParseException;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One open perf event: its fd, the attr it was opened with, the ioctls of include/uapi/linux/perf_event.h and
 * read(2) of its counter(s). Close it, or let the {@link PerfEvents} that opened it close it.
 */
public final class PerfEvent implements AutoCloseable {

    private static final VarHandle LE_LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

    private final PerfEvents owner;
    private final NativeBinding binding;
    private final int fd;
    private final PerfEventAttr attr;
    private final int attrSize;
    private final int pid;
    private final int cpu;
    private final PerfEvent leader;
    /** Members including this leader: sizes a GROUP read. */
    private final AtomicInteger groupSize = new AtomicInteger(1);
    private PerfMmapRing ring;
    private boolean closed;

    PerfEvent(PerfEvents owner, int fd, PerfEventAttr attr, int attrSize, int pid, int cpu, PerfEvent leader) {
        this.owner = owner;
        this.binding = owner.binding();
        this.fd = fd;
        this.attr = attr;
        this.attrSize = attrSize;
        this.pid = pid;
        this.cpu = cpu;
        this.leader = leader;
        if (leader != null) {
            leader.groupSize.incrementAndGet();
        }
    }

    public int fd() {
        return fd;
    }

    public PerfEventAttr attr() {
        return attr;
    }

    /** The attr size the kernel accepted (after E2BIG negotiation, the kernel's own). */
    public int attrSize() {
        return attrSize;
    }

    public int pid() {
        return pid;
    }

    public int cpu() {
        return cpu;
    }

    /** The group leader, or null for a leader. */
    public PerfEvent leader() {
        return leader;
    }

    /** Events in this leader's group, itself included (1 for a member). */
    public int groupSize() {
        return groupSize.get();
    }

    PerfErrors errors() {
        return owner.errors();
    }

    NativeBinding binding() {
        return binding;
    }

    private long ioctl(String name, long request, long arg) {
        try {
            return binding.ioctl(fd, request, arg);
        } catch (ErrnoException e) {
            throw owner.errors().call("ioctl " + name + " on perf fd " + fd, e.errno(), e);
        }
    }

    public void enable() {
        ioctl("PERF_EVENT_IOC_ENABLE", PerfIoctl.ENABLE, 0);
    }

    public void disable() {
        ioctl("PERF_EVENT_IOC_DISABLE", PerfIoctl.DISABLE, 0);
    }

    public void reset() {
        ioctl("PERF_EVENT_IOC_RESET", PerfIoctl.RESET, 0);
    }

    /** ENABLE with PERF_IOC_FLAG_GROUP: the leader and every member at once. */
    public void enableGroup() {
        ioctl("PERF_EVENT_IOC_ENABLE", PerfIoctl.ENABLE, PerfIoctl.FLAG_GROUP);
    }

    public void disableGroup() {
        ioctl("PERF_EVENT_IOC_DISABLE", PerfIoctl.DISABLE, PerfIoctl.FLAG_GROUP);
    }

    public void resetGroup() {
        ioctl("PERF_EVENT_IOC_RESET", PerfIoctl.RESET, PerfIoctl.FLAG_GROUP);
    }

    /** PERF_EVENT_IOC_ID: the kernel's id of this event (what ID/IDENTIFIER fields carry). */
    public long id() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ValueLayout.JAVA_LONG);
            ioctl("PERF_EVENT_IOC_ID", PerfIoctl.ID, out.address());
            return out.get(ValueLayout.JAVA_LONG, 0);
        }
    }

    /** PERF_EVENT_IOC_SET_OUTPUT: this event's records go into {@code target}'s ring (null: stop). */
    public void setOutput(PerfEvent target) {
        ioctl("PERF_EVENT_IOC_SET_OUTPUT", PerfIoctl.SET_OUTPUT, target == null ? -1 : target.fd);
    }

    /** PERF_EVENT_IOC_PERIOD: a new sample period (arg points to a u64). */
    public void period(long period) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate(ValueLayout.JAVA_LONG);
            in.set(ValueLayout.JAVA_LONG, 0, period);
            ioctl("PERF_EVENT_IOC_PERIOD", PerfIoctl.PERIOD, in.address());
        }
    }

    /**
     * read(2) of the counter(s) in the attr's read_format: one value, or with GROUP the leader's
     * whole group. (pread fails on perf fds with ESPIPE.)
     */
    public PerfCounts read() {
        long rf = attr.readFormat();
        int members = (rf & PerfFormat.GROUP) != 0 ? groupSize() : 1;
        int len = (int) PerfCounts.byteSize(rf, members);
        for (int tries = 0; ; tries++) {
            byte[] buf = new byte[len];
            long n;
            try {
                n = binding.readNonBlocking(fd, buf, len);
            } catch (ErrnoException e) {
                if (e.errno() == Errno.ENOSPC && tries < 8) { // a member opened elsewhere: grow
                    len *= 2;
                    continue;
                }
                throw owner.errors().call("read of perf fd " + fd, e.errno(), e);
            }
            return PerfCounts.read(MemorySegment.ofArray(buf), 0, n, rf);
        }
    }

    /**
     * The counter value alone. Without GROUP the value is the first u64 read(2) returns
     * (perf_read_one), so it is decoded from the bytes directly: no PerfCounts and its three
     * arrays per read (200 B, against 24 B for the read buffer; PerfReadBench -prof gc).
     */
    public long value() {
        long rf = attr.readFormat();
        if ((rf & PerfFormat.GROUP) != 0) {
            return read().value();
        }
        int len = (int) PerfCounts.byteSize(rf, 1);
        byte[] buf = new byte[len];
        long n;
        try {
            n = binding.readNonBlocking(fd, buf, len);
        } catch (ErrnoException e) {
            throw owner.errors().call("read of perf fd " + fd, e.errno(), e);
        }
        if (n < Long.BYTES) {
            throw new PerfParseException(0, "value runs past the end of the read data (" + n + " bytes)");
        }
        return (long) LE_LONG.get(buf, 0);
    }

    /**
     * Maps the ring buffer: the user page and {@code dataPages} (0 or a power of 2) data pages. One
     * ring per event; it is unmapped when the event closes.
     */
    public synchronized PerfMmapRing mmap(int dataPages) {
        if (ring != null) {
            throw new IllegalStateException("perf fd " + fd + " is already mapped");
        }
        ring = PerfMmapRing.map(this, dataPages);
        return ring;
    }

    synchronized void unmapped(PerfMmapRing r) {
        if (ring == r) {
            ring = null;
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (ring != null) {
                ring.close();
            }
        } finally {
            owner.closed(this);
            try {
                binding.close(fd);
            } catch (ErrnoException e) {
                throw owner.errors().call("close of perf fd " + fd, e.errno(), e);
            }
        }
    }

    @Override
    public String toString() {
        return "PerfEvent{fd=" + fd + ", " + attr + ", pid=" + pid + ", cpu=" + cpu + "}";
    }
}
