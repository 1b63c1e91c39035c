package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordRequest;
import dev.hwtool.record.RecordSink;
import dev.hwtool.record.SinkRecorder;
import dev.hwtool.api.Recording;
import dev.hwtool.api.RecordTarget;
import dev.hwtool.api.Recorder;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.api.RecordingSummary;
import dev.hwtool.arch.perf.abi.PerfAuxFlag;
import dev.hwtool.arch.perf.abi.PerfParseException;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfUserPage;
import dev.hwtool.bind.Errno;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.io.CpuList;
import dev.hwtool.linux.sys.HeldChild;
import dev.hwtool.report.InMemoryRecording;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.locks.LockSupport;

/**
 * The hardware {@link Recorder}: runs a command held before its exec ({@link HeldChild}), with
 * the request's event opened on it as {@code perf record} opens one for a forked command — one
 * fd per online CPU for the child's pid (inherit), each with its own ring buffer, because the
 * kernel refuses to mmap an inherited per-task event with cpu -1 (perf_mmap: EINVAL,
 * include/uapi/linux/perf_event.h, struct perf_event_mmap_page). enable_on_exec starts the recording at the command's exec. While the
 * command runs, the rings are drained whenever poll(2) says one is half full (the kernel's
 * default watermark) or every {@link #POLL_TIMEOUT_MS} ms; every record goes to the sink as the
 * kernel wrote it, and intel_bts AUX data follows the PERF_RECORD_AUX that announced it.
 *
 * <p>Before anything starts, the planned event is opened once on this process through
 * {@link PerfProbe#check}: a request the kernel refuses fails with exactly the message
 * {@code hwtool caps} shows for that facility, and no child is started.
 */
public final class PerfRecorder implements SinkRecorder {

    /** perf record's default ring: 512 KiB of data per CPU (-m 128 pages). */
    public static final int DEFAULT_DATA_PAGES = 128;
    /** 1 MiB of AUX per CPU for intel_bts (perf uses 4 MiB privileged, 128 KiB unprivileged). */
    public static final int DEFAULT_AUX_PAGES = 256;
    /** How long one poll(2) waits when no ring reaches its watermark. */
    public static final int POLL_TIMEOUT_MS = 100;

    /** x86-64 __NR_poll and struct pollfd (int fd; short events; short revents), poll(2). */
    private static final long SYS_POLL = 7;
    private static final int POLLFD_SIZE = 8;
    private static final short POLLIN = 0x1;
    private static final short POLLHUP = 0x10;

    private final PerfEvents perf;
    private final PerfProbe probe;
    private final List<Integer> cpus;
    private final int dataPages;
    private final int auxPages;

    /**
     * @param cpus      the CPUs to open the event on (the online ones)
     * @param dataPages data pages per ring, a power of 2
     * @param auxPages  AUX pages per ring (intel_bts), a power of 2
     */
    public PerfRecorder(PerfEvents perf, PerfProbe probe, List<Integer> cpus, int dataPages, int auxPages) {
        this.perf = Objects.requireNonNull(perf, "perf");
        this.probe = Objects.requireNonNull(probe, "probe");
        this.cpus = List.copyOf(cpus);
        if (this.cpus.isEmpty()) {
            throw new IllegalArgumentException("no CPUs to record on");
        }
        if (dataPages < 1 || Integer.bitCount(dataPages) != 1 || auxPages < 1 || Integer.bitCount(auxPages) != 1) {
            throw new IllegalArgumentException("ring sizes must be powers of 2, got " + dataPages + " and " + auxPages);
        }
        this.dataPages = dataPages;
        this.auxPages = auxPages;
    }

    /** On a platform's perf events, every online CPU, perf record's ring sizes. */
    public PerfRecorder(PerfEvents perf) {
        this(perf, new PerfProbe(perf), CpuList.online(), DEFAULT_DATA_PAGES, DEFAULT_AUX_PAGES);
    }

    @Override
    public String backend() {
        return "hardware";
    }

    /** The recording in memory; its addresses are named from the ELF files its mappings name. */
    @Override
    public Recording record(RecordRequest request, RecordTarget target) {
        return InMemoryRecording.record(this, request, target, symbols -> { });
    }

    @Override
    public RecordingSummary record(RecordRequest request, RecordTarget target, RecordSink sink) {
        Objects.requireNonNull(request, "request");
        Objects.requireNonNull(sink, "sink");
        if (perf.isClosed()) {
            throw HwException.closed("Recorder", "Linux hardware backend");
        }
        if (!(target instanceof RecordTarget.Command command)) {
            throw new HwException(Cause.BAD_INPUT, "the hardware recorder runs a command, not a simulator workload ("
                    + target.describe() + ")", "give a command, or use --backend sim for a workload");
        }
        RecordingAttrs.Planned planned = RecordingAttrs.plan(request, probe.pmus());
        probe.check(planned);
        List<Channel> channels = new ArrayList<>();
        try (HeldChild child = HeldChild.start(perf.binding(), command.argv())) {
            int pid = Math.toIntExact(child.pid());
            for (int cpu : cpus) {
                channels.add(openOn(planned, pid, cpu));
            }
            sink.begin(info(planned, command, channels));
            Drain drain = new Drain(sink, channels);
            HeldChild.Ended end = child.run(drain::pollOnce);
            drain.drainAll();
            drain.rethrow();
            return drain.summary(end);
        } finally {
            closeAll(channels);
        }
    }

    /** One CPU's fd and ring. */
    private record Channel(int cpu, PerfEvent event, PerfMmapRing ring) {
    }

    private Channel openOn(RecordingAttrs.Planned planned, int pid, int cpu) {
        PerfEvent e = perf.open(planned.attr(), pid, cpu, -1, 0);
        try {
            PerfMmapRing ring = e.mmap(dataPages);
            if (planned.auxPmu().isPresent()) {
                ring.mapAux(auxPages);
            }
            return new Channel(cpu, e, ring);
        } catch (RuntimeException x) {
            e.close();
            throw x;
        }
    }

    private RecordingInfo info(RecordingAttrs.Planned planned, RecordTarget.Command command, List<Channel> channels) {
        List<Long> ids = new ArrayList<>();
        for (Channel c : channels) {
            ids.add(c.event().id());
        }
        PerfEvent first = channels.getFirst().event();
        var attr = planned.attr().toBuilder().size(first.attrSize()).build();
        Optional<RecordingInfo.AuxPmu> aux = planned.auxPmu().map(name -> {
            PerfUserPage.Snapshot s = channels.getFirst().ring().userPage().snapshot();
            return new RecordingInfo.AuxPmu(name, attr.type(), s.timeShift(), s.timeMult(), s.timeZero(),
                    s.capUserTimeZero());
        });
        return new RecordingInfo(backend(), command.describe(),
                List.of(new RecordingInfo.Event(planned.name(), attr, ids)), aux);
    }

    private static void closeAll(List<Channel> channels) {
        PerfEvents.closeAll(channels.stream().map(Channel::event).toList());
    }

    /** Moves records from the rings to the sink and counts them. */
    private final class Drain {
        private final RecordSink sink;
        private final List<Channel> channels;
        private long records;
        private long samples;
        private long auxBytes;
        private boolean auxTruncated;
        private RuntimeException failure;

        Drain(RecordSink sink, List<Channel> channels) {
            this.sink = sink;
            this.channels = channels;
        }

        /** Waits (poll(2)) for a ring to fill or the timeout, then drains every ring. */
        void pollOnce() {
            if (failure != null) { // stop reading; let the command finish on its own
                LockSupport.parkNanos(POLL_TIMEOUT_MS * 1_000_000L);
                return;
            }
            boolean hungUp = waitForData();
            drainAll();
            if (hungUp) {
                // The task has exited (POLLHUP stays set), but the JVM has not reaped it yet:
                // poll would return at once, so wait a little instead of spinning.
                LockSupport.parkNanos(1_000_000L);
            }
        }

        private boolean waitForData() {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment fds = arena.allocate((long) POLLFD_SIZE * channels.size(), 8);
                for (int i = 0; i < channels.size(); i++) {
                    fds.set(ValueLayout.JAVA_INT, (long) i * POLLFD_SIZE, channels.get(i).event().fd());
                    fds.set(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 4, POLLIN);
                }
                NativeBinding b = perf.binding();
                try {
                    b.syscall(SYS_POLL, fds.address(), channels.size(), POLL_TIMEOUT_MS);
                } catch (ErrnoException e) {
                    if (e.errno() != Errno.EINTR) {
                        throw perf.errors().call("poll of the perf fds", e.errno(), e);
                    }
                    return false;
                }
                for (int i = 0; i < channels.size(); i++) {
                    if ((fds.get(ValueLayout.JAVA_SHORT, (long) i * POLLFD_SIZE + 6) & POLLHUP) != 0) {
                        return true;
                    }
                }
                return false;
            }
        }

        void drainAll() {
            if (failure != null) {
                return;
            }
            for (Channel c : channels) {
                try {
                    c.ring().poll(r -> forward(c, r));
                } catch (PerfParseException e) {
                    failure = new HwException(Cause.OS_ERROR, "the ring buffer of CPU " + c.cpu()
                            + " holds a malformed record: " + e.getMessage(), null, e);
                    return;
                } catch (RuntimeException e) {
                    failure = e;
                    return;
                }
            }
        }

        private void forward(Channel c, PerfRecordCursor r) {
            sink.record(r.recordSegment());
            records++;
            if (r.type() == PerfRecordType.SAMPLE) {
                samples++;
            } else if (r.type() == PerfRecordType.AUX) {
                // struct { u64 aux_offset; u64 aux_size; u64 flags; } (include/uapi/linux/perf_event.h)
                if ((r.bodyU64(16) & PerfAuxFlag.TRUNCATED) != 0) {
                    auxTruncated = true;
                }
                int tid = r.tid();
                long offset = c.ring().auxTail();
                auxBytes += c.ring().pollAux((bytes, at, length) ->
                        sink.auxtrace(offset, c.cpu(), tid, bytes.asSlice(at, length)));
            }
        }

        void rethrow() {
            if (failure != null) {
                throw failure;
            }
        }

        RecordingSummary summary(HeldChild.Ended end) {
            long lost = 0;
            long lostSamples = 0;
            for (Channel c : channels) {
                lost += c.ring().lostRecords();
                lostSamples += c.ring().lostSamples();
            }
            return new RecordingSummary(records, samples, lost, lostSamples, auxBytes, auxTruncated, end.status(),
                    end.elapsedNs());
        }
    }
}
