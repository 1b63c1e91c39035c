package dev.hwtool.linux.perf;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfIoctl;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.linux.sys.LinuxProbe;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

/**
 * Opens perf events through {@code syscall(__NR_perf_event_open = 298, ...)} and keeps track of
 * the ones still open: {@link #close()} closes them (and their mappings), so a
 * {@code dev.hwtool.linux.LinuxPlatform} that owns one closes every event with the platform.
 * Closing an event earlier is the caller's choice and safe.
 *
 * <p>Size negotiation as perf's tools do (tools/lib/perf/evsel.c, perf_copy_attr): on E2BIG the
 * kernel has written the size of its own struct into attr.size; if every byte past it is zero,
 * the attr is retried at that size, else the attr needs a field this kernel lacks.
 */
public final class PerfEvents implements AutoCloseable {

    /** __NR_perf_event_open on x86-64 (asm/unistd_64.h). */
    public static final long SYS_PERF_EVENT_OPEN = 298;

    private final NativeBinding binding;
    private final PerfErrors errors;
    private final Set<PerfEvent> open = ConcurrentHashMap.newKeySet();

    /** Events on {@code binding}, with failures explained from this system's /proc and /sys. */
    private volatile boolean closed;

    public PerfEvents(NativeBinding binding) {
        this(binding, LinuxProbe::probe);
    }

    public PerfEvents(NativeBinding binding, Supplier<LinuxFacts> facts) {
        this.binding = Objects.requireNonNull(binding, "binding");
        this.errors = new PerfErrors(facts);
    }

    public NativeBinding binding() {
        return binding;
    }

    public PerfErrors errors() {
        return errors;
    }

    /** This thread's own event (pid 0, any CPU), no group. */
    public PerfEvent openSelf(PerfEventAttr attr) {
        return open(attr, 0, -1, -1, 0);
    }

    /** A member of {@code leader}'s group, on the leader's task and CPU. */
    public PerfEvent openMember(PerfEventAttr attr, PerfEvent leader) {
        return open(attr, leader.pid(), leader.cpu(), leader.fd(), 0);
    }

    /**
     * perf_event_open(2). PERF_FLAG_FD_CLOEXEC is always added: a perf fd must not leak into
     * processes this JVM starts.
     *
     * @param groupFd the leader's fd, or -1 for a new group
     * @throws HwException with the cause and remedy of a failure (see {@link PerfErrors})
     */
    public PerfEvent open(PerfEventAttr attr, int pid, int cpu, int groupFd, long flags) {
        Objects.requireNonNull(attr, "attr");
        byte[] bytes = attr.encode(attr.size());
        long f = flags | PerfIoctl.FLAG_FD_CLOEXEC;
        for (int attempt = 0; ; attempt++) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment m = arena.allocate(bytes.length, 8);
                MemorySegment.copy(bytes, 0, m, ValueLayout.JAVA_BYTE, 0, bytes.length);
                try {
                    int fd = (int) binding.syscall(SYS_PERF_EVENT_OPEN, m.address(), pid, cpu, groupFd, f);
                    PerfEvent leader = groupFd < 0 ? null : find(groupFd);
                    PerfEvent e = new PerfEvent(this, fd, attr, bytes.length, pid, cpu, leader);
                    open.add(e);
                    return e;
                } catch (ErrnoException e) {
                    int kernelSize = m.get(ValueLayout.JAVA_INT_UNALIGNED, 4);
                    if (e.errno() == Errno.E2BIG && attempt == 0 && kernelSize >= PerfEventAttr.SIZE_VER0
                            && kernelSize < bytes.length) {
                        int nonZero = firstNonZero(bytes, kernelSize);
                        if (nonZero >= 0) {
                            throw errors.attrTooLarge(attr, pid, cpu, kernelSize, nonZero);
                        }
                        bytes = attr.encode(kernelSize);
                        continue;
                    }
                    throw errors.open(e.errno(), attr, pid, cpu, e);
                }
            }
        }
    }

    private static int firstNonZero(byte[] b, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] != 0) {
                return i;
            }
        }
        return -1;
    }

    private PerfEvent find(int fd) {
        for (PerfEvent e : open) {
            if (e.fd() == fd) {
                return e;
            }
        }
        return null;
    }

    void closed(PerfEvent e) {
        open.remove(e);
    }

    /** The events opened here and not yet closed. */
    public List<PerfEvent> openEvents() {
        return List.copyOf(open);
    }

    /** Whether {@link #close()} has been called: the platform these events belong to is closed. */
    public boolean isClosed() {
        return closed;
    }

    /** Closes every event still open (members before leaders, as perf's tools do). */
    @Override
    public void close() {
        closed = true;
        List<PerfEvent> all = new ArrayList<>(open);
        all.sort((a, b) -> Boolean.compare(a.leader() == null, b.leader() == null));
        closeAll(all);
    }

    /** Closes every one of {@code events}, in order; the first failure is thrown after all were tried. */
    public static void closeAll(List<PerfEvent> events) {
        RuntimeException first = null;
        for (PerfEvent e : events) {
            try {
                e.close();
            } catch (RuntimeException x) {
                if (first == null) {
                    first = x;
                } else {
                    first.addSuppressed(x);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
