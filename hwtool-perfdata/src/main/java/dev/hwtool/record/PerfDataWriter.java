package dev.hwtool.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.record.RecordSink;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.io.IoErrors;
import dev.hwtool.io.OutputFile;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Writes a recording as a perf.data file (version 2) that {@code perf report -i} and
 * {@code perf script -i} read, and {@link PerfDataFile} reads back.
 *
 * <p>Layout, as {@code perf record} lays it out (tools/perf/util/header.c perf_session__write_header):
 * the 104-byte file header, each event's ids, the attrs section (one perf_event_attr plus a
 * perf_file_section for its ids per event), the data section (the records exactly as given,
 * preceded by a PERF_RECORD_AUXTRACE_INFO when an AUX PMU is recorded), then the feature sections
 * perf record writes (header.c feat_ops) that a report uses: HOSTNAME, OSRELEASE, VERSION
 * ("hwtool"), ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM (of {@link RecordingInfo#machine()}: the
 * simulated machine's for a simulated recording, else this host's), CMDLINE (which carries the
 * backend, see {@link RecordingCmdline}), EVENT_DESC (the event names perf shows), BRANCH_STACK
 * when an event samples branch stacks (perf report's default branch mode follows this bit, not the
 * attr) and SAMPLE_TIME (the first and last sample's time). TRACING_DATA, BUILD_ID and the
 * topology features are left out: perf reads a file without them.
 *
 * <p>Attrs are written at the smallest size that holds every field set in any of them: perf reads
 * an attr by its own size field and refuses sizes above its sizeof(struct perf_event_attr) (128
 * in perf 6.1, header.c read_attr), while the kernel's negotiated size may be larger (136 on 6.3+).
 *
 * <p>The file is written under hwtool's output policy ({@link OutputFile}, with perf record's
 * {@code NAME.old}): a regular file is written to a temporary file next to the target that
 * {@link #commit()} completes and renames onto it atomically, and {@link #close()} without commit
 * deletes, so nothing half-written ever appears at the target; a device or a pipe is written
 * through, never replaced.
 */
public final class PerfDataWriter implements RecordSink, AutoCloseable {

    private static final int BUFFER = 1 << 20;
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Destination out;
    private final ByteBuffer buffer = ByteBuffer.allocateDirect(BUFFER).order(ByteOrder.LITTLE_ENDIAN);
    private final MemorySegment bufferSegment = MemorySegment.ofBuffer(buffer);
    private final Map<Integer, Integer> auxIdx = new java.util.HashMap<>();

    private RecordingInfo info;
    private int attrSize;
    private long attrsOffset;
    private long dataOffset;
    private long written;
    private long auxReference;
    /** Offset of a sample's time in its body, or -1 when TIME is not sampled. */
    private int timeOffset = -1;
    private long firstSampleTime = -1;
    private long lastSampleTime = -1;
    private boolean committed;
    private boolean closed;

    private PerfDataWriter(Destination out) {
        this.out = out;
    }

    /**
     * Starts a recording file that will appear at {@code target} on {@link #commit()}: checks the
     * target and prepares it ({@link OutputFile#open}), before anything is recorded.
     *
     * @throws HwException OS_ERROR when nothing can be written there
     */
    public static PerfDataWriter create(Path target) {
        OutputFile out = OutputFile.open(target, OutputFile.Option.KEEP_OLD);
        try {
            return new PerfDataWriter(new FileDestination(out));
        } catch (RuntimeException e) {
            out.close();
            throw e;
        }
    }

    /**
     * Starts a recording held in memory, the same bytes a file would get: {@link #image()} after
     * {@link #commit()}. Up to {@link MemoryDestination#LIMIT} bytes; a recording that grows
     * past it is refused (UNSUPPORTED, with the remedy to record to a file), never cut short.
     *
     * @param name what the recording is called in messages
     */
    public static PerfDataWriter inMemory(String name) {
        return new PerfDataWriter(new MemoryDestination(name));
    }

    /** Where the file will appear, as given; an in-memory recording has none. */
    public Path target() {
        if (out instanceof FileDestination f) {
            return f.file.target();
        }
        throw new IllegalStateException(out.name() + " is held in memory, not written to a file");
    }

    /** The committed recording's bytes, for a recording {@linkplain #inMemory held in memory}. */
    public MemorySegment image() {
        if (!(out instanceof MemoryDestination m)) {
            throw new IllegalStateException("the recording is a file: " + target());
        }
        if (!committed) {
            throw new IllegalStateException("the recording " + m.name + " is not committed");
        }
        return m.image();
    }

    /** The bytes written so far (the file's size once committed). */
    public long size() {
        return position();
    }

    @Override
    public void begin(RecordingInfo info) {
        requireOpen();
        if (this.info != null) {
            throw new IllegalStateException("begin was already called");
        }
        this.info = info;
        attrSize = PerfEventAttr.SIZE_VER0;
        for (RecordingInfo.Event e : info.events()) {
            attrSize = Math.max(attrSize, e.attr().minimumSize());
        }
        // header placeholder (rewritten by commit), then the ids, then the attrs
        put(new byte[PerfFileFormat.HEADER_SIZE]);
        long[] idsOffset = new long[info.events().size()];
        for (int i = 0; i < idsOffset.length; i++) {
            idsOffset[i] = position();
            for (long id : info.events().get(i).ids()) {
                putLong(id);
            }
        }
        attrsOffset = position();
        for (int i = 0; i < idsOffset.length; i++) {
            RecordingInfo.Event e = info.events().get(i);
            put(e.attr().encode(attrSize));
            putLong(idsOffset[i]);
            putLong(8L * e.ids().size());
        }
        dataOffset = position();
        long sampleType = info.events().getFirst().attr().sampleType();
        if ((sampleType & PerfSample.TIME) != 0) {
            // the body starts with IDENTIFIER, IP, TID before TIME (include/uapi/linux/perf_event.h PERF_RECORD_SAMPLE)
            timeOffset = 8 + 8 * Long.bitCount(sampleType & (PerfSample.IDENTIFIER | PerfSample.IP | PerfSample.TID));
        }
        info.auxPmu().ifPresent(this::putAuxtraceInfo);
    }

    /** PERF_RECORD_AUXTRACE_INFO for intel_bts (tools/perf/arch/x86/util/intel-bts.c intel_bts_info_fill). */
    private void putAuxtraceInfo(RecordingInfo.AuxPmu pmu) {
        long[] priv = new long[PerfFileFormat.BTS_PRIV_MAX];
        priv[PerfFileFormat.BTS_PMU_TYPE] = Integer.toUnsignedLong(pmu.type());
        priv[PerfFileFormat.BTS_TIME_SHIFT] = pmu.timeShift();
        priv[PerfFileFormat.BTS_TIME_MULT] = pmu.timeMult();
        priv[PerfFileFormat.BTS_TIME_ZERO] = pmu.timeZero();
        priv[PerfFileFormat.BTS_CAP_USER_TIME_ZERO] = pmu.capUserTimeZero() ? 1 : 0;
        priv[PerfFileFormat.BTS_SNAPSHOT_MODE] = 0;
        int size = PerfFileFormat.AUXTRACE_INFO_PRIV_OFFSET + 8 * priv.length;
        putHeader(PerfFileFormat.RECORD_AUXTRACE_INFO, size);
        putInt(PerfFileFormat.AUXTRACE_INTEL_BTS);
        putInt(0);
        for (long p : priv) {
            putLong(p);
        }
    }

    @Override
    public void record(MemorySegment record) {
        requireBegun();
        long n = record.byteSize();
        if (n < 8 || Short.toUnsignedInt(record.get(U16, 6)) != n) {
            throw new IllegalArgumentException("a perf record's header size must equal its " + n + " bytes");
        }
        if (timeOffset >= 0 && record.get(U32, 0) == PerfRecordType.SAMPLE && n >= timeOffset + 8) {
            long time = record.get(U64, timeOffset);
            if (firstSampleTime < 0) {
                firstSampleTime = time;
            }
            lastSampleTime = time;
        }
        put(record);
    }

    /**
     * PERF_RECORD_AUXTRACE then the data padded to 8 bytes, as perf record writes it
     * (tools/perf/util/auxtrace.c __auxtrace_mmap__read): size counts the padding, idx is the AUX
     * buffer's index (one per CPU, or 0 per-thread), reference tells the buffers apart.
     */
    @Override
    public void auxtrace(long auxOffset, int cpu, int tid, MemorySegment data) {
        requireBegun();
        long len = data.byteSize();
        long padded = (len + PerfFileFormat.AUXTRACE_ALIGN - 1) & -PerfFileFormat.AUXTRACE_ALIGN;
        int idx = auxIdx.computeIfAbsent(cpu, c -> auxIdx.size());
        putHeader(PerfFileFormat.RECORD_AUXTRACE, PerfFileFormat.AUXTRACE_HEADER_SIZE);
        putLong(padded);
        putLong(auxOffset);
        putLong(++auxReference);
        putInt(idx);
        putInt(tid);
        putInt(cpu);
        putInt(0);
        put(data);
        put(new byte[(int) (padded - len)]);
    }

    /**
     * Writes the feature sections and the header, and moves the file onto the target.
     *
     * @throws IllegalStateException when begin was not called, or commit was already
     * @throws HwException           OS_ERROR when the file cannot be written or moved
     */
    public void commit() {
        requireBegun();
        long dataSize = position() - dataOffset;
        List<PerfFeature> features = new ArrayList<>();
        Map<PerfFeature, byte[]> contents = new EnumMap<>(PerfFeature.class);
        hostFile("/proc/sys/kernel/hostname").ifPresent(h -> contents.put(PerfFeature.HOSTNAME, string(h)));
        hostFile("/proc/sys/kernel/osrelease").ifPresent(r -> contents.put(PerfFeature.OSRELEASE, string(r)));
        contents.put(PerfFeature.VERSION, string("hwtool"));
        info.machine().or(HostMachine::read).ifPresent(m -> machine(m, contents));
        contents.put(PerfFeature.CMDLINE, strings(RecordingCmdline.encode(info.backend(), info.target())));
        contents.put(PerfFeature.EVENT_DESC, eventDesc());
        if (info.events().stream().anyMatch(e -> (e.attr().sampleType() & PerfSample.BRANCH_STACK) != 0)) {
            contents.put(PerfFeature.BRANCH_STACK, new byte[0]);
        }
        if (firstSampleTime >= 0) {
            contents.put(PerfFeature.SAMPLE_TIME, ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(firstSampleTime).putLong(lastSampleTime).array());
        }
        features.addAll(contents.keySet());
        long table = position();
        long at = table + (long) PerfFileFormat.SECTION_SIZE * features.size();
        for (PerfFeature f : features) {
            putLong(at);
            putLong(contents.get(f).length);
            at += contents.get(f).length;
        }
        for (PerfFeature f : features) {
            put(contents.get(f));
        }
        ByteBuffer h = ByteBuffer.allocate(PerfFileFormat.HEADER_SIZE).order(ByteOrder.LITTLE_ENDIAN);
        h.putLong(PerfFileFormat.MAGIC).putLong(PerfFileFormat.HEADER_SIZE)
                .putLong(attrSize + PerfFileFormat.SECTION_SIZE)
                .putLong(attrsOffset).putLong(dataOffset - attrsOffset)
                .putLong(dataOffset).putLong(dataSize)
                .putLong(0).putLong(0);
        long[] bits = new long[PerfFileFormat.FEATURE_BITS / 64];
        for (PerfFeature f : features) {
            bits[f.bit() / 64] |= 1L << (f.bit() % 64);
        }
        for (long b : bits) {
            h.putLong(b);
        }
        h.flip();
        flush();
        try {
            while (h.hasRemaining()) {
                out.write(h, h.position());
            }
        } catch (IOException e) {
            close();
            throw out.cannotWrite(e);
        }
        closed = true;
        out.commit();
        committed = true;
    }

    /** Abandons the recording unless committed: the temporary file is deleted; idempotent. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        out.close();
    }

    /** ARCH, NRCPUS, CPUDESC, CPUID, TOTAL_MEM as header.c write_arch ... write_total_mem lay them out. */
    private static void machine(RecordingInfo.Machine m, Map<PerfFeature, byte[]> contents) {
        contents.put(PerfFeature.ARCH, string(m.arch()));
        contents.put(PerfFeature.NRCPUS, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(m.cpusAvailable()).putInt(m.cpusOnline()).array());
        if (!m.cpuDesc().isEmpty()) {
            contents.put(PerfFeature.CPUDESC, string(m.cpuDesc()));
        }
        contents.put(PerfFeature.CPUID, string(m.cpuid()));
        if (m.totalMemKib() > 0) {
            contents.put(PerfFeature.TOTAL_MEM, ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN)
                    .putLong(m.totalMemKib()).array());
        }
    }

    private byte[] eventDesc() {
        ByteBuffer b = growable();
        List<RecordingInfo.Event> events = info.events();
        b.putInt(events.size()).putInt(attrSize);
        for (RecordingInfo.Event e : events) {
            b = ensure(b, attrSize + 4 + PerfFileFormat.NAME_ALIGN + e.name().length() * 4 + 8 * (e.ids().size() + 1));
            b.put(e.attr().encode(attrSize));
            // perf 6.1 evlist__set_event_name looks the event up by ids[0] and reads it even when nr is 0;
            // an id-less event gets id 0, which perf resolves to the first event
            List<Long> ids = e.ids().isEmpty() ? List.of(0L) : e.ids();
            b.putInt(ids.size());
            b.put(string(e.name()));
            for (long id : ids) {
                b.putLong(id);
            }
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    private static byte[] strings(List<String> list) {
        ByteBuffer b = growable();
        b.putInt(list.size());
        for (String s : list) {
            byte[] e = string(s);
            b = ensure(b, e.length);
            b.put(e);
        }
        return java.util.Arrays.copyOf(b.array(), b.position());
    }

    /** struct perf_header_string: u32 len, then the string, its NUL and zero padding to NAME_ALIGN. */
    static byte[] string(String s) {
        byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
        int len = (bytes.length + 1 + PerfFileFormat.NAME_ALIGN - 1) / PerfFileFormat.NAME_ALIGN * PerfFileFormat.NAME_ALIGN;
        ByteBuffer b = ByteBuffer.allocate(4 + len).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(len).put(bytes);
        return b.array();
    }

    private static ByteBuffer growable() {
        return ByteBuffer.allocate(256).order(ByteOrder.LITTLE_ENDIAN);
    }

    private static ByteBuffer ensure(ByteBuffer b, int more) {
        if (b.remaining() >= more) {
            return b;
        }
        ByteBuffer bigger = ByteBuffer.allocate(Math.max(b.capacity() * 2, b.position() + more)).order(ByteOrder.LITTLE_ENDIAN);
        b.flip();
        return bigger.put(b);
    }

    private static Optional<String> hostFile(String path) {
        try {
            return Optional.of(Files.readString(Path.of(path)).strip()).filter(s -> !s.isEmpty());
        } catch (IOException | SecurityException e) {
            return Optional.empty();
        }
    }

    // ---- buffered output --------------------------------------------------------------------------

    private long position() {
        return written + buffer.position();
    }

    private void putHeader(int type, int size) {
        putInt(type);
        room(4);
        buffer.putShort((short) 0).putShort((short) size);
    }

    private void putInt(int v) {
        room(4);
        buffer.putInt(v);
    }

    private void putLong(long v) {
        room(8);
        buffer.putLong(v);
    }

    private void put(byte[] b) {
        put(MemorySegment.ofArray(b));
    }

    private void put(MemorySegment s) {
        long n = s.byteSize();
        long done = 0;
        while (done < n) {
            if (!buffer.hasRemaining()) {
                flush();
            }
            int chunk = (int) Math.min(buffer.remaining(), n - done);
            MemorySegment.copy(s, done, bufferSegment, buffer.position(), chunk);
            buffer.position(buffer.position() + chunk);
            done += chunk;
        }
    }

    private void room(int n) {
        if (buffer.remaining() < n) {
            flush();
        }
    }

    private void flush() {
        buffer.flip();
        try {
            while (buffer.hasRemaining()) {
                written += out.write(buffer, written);
            }
        } catch (IOException e) {
            buffer.clear();
            close();
            throw out.cannotWrite(e);
        }
        buffer.clear();
    }

    private void requireOpen() {
        if (committed) {
            throw new IllegalStateException("the recording was already committed to " + out.name());
        }
        if (closed) {
            throw new IllegalStateException("the recording to " + out.name() + " was closed without commit");
        }
    }

    private void requireBegun() {
        requireOpen();
        if (info == null) {
            throw new IllegalStateException("begin was not called");
        }
    }

    /** Where the bytes go: positional writes, then commit (or close, which abandons them). */
    private sealed interface Destination permits FileDestination, MemoryDestination {
        int write(ByteBuffer src, long position) throws IOException;

        void commit();

        void close();

        String name();

        HwException cannotWrite(IOException e);
    }

    /** A file under hwtool's output policy: a temporary file renamed into place on commit. */
    private record FileDestination(OutputFile file) implements Destination {
        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            return file.channel().write(src, position);
        }

        @Override
        public void commit() {
            file.commit();
        }

        @Override
        public void close() {
            file.close();
        }

        @Override
        public String name() {
            return file.target().toString();
        }

        @Override
        public HwException cannotWrite(IOException e) {
            return IoErrors.cannotWrite(file.target(), null, e);
        }
    }

    /** Memory: a byte array that doubles as it fills, up to the largest array the JVM makes. */
    static final class MemoryDestination implements Destination {
        /** The largest byte array HotSpot allocates (ArraysSupport.SOFT_MAX_ARRAY_LENGTH). */
        static final int LIMIT = Integer.MAX_VALUE - 8;

        private final String name;
        private byte[] bytes = new byte[1 << 16];
        private long size;
        private boolean closed;

        MemoryDestination(String name) {
            this.name = java.util.Objects.requireNonNull(name, "name");
        }

        @Override
        public int write(ByteBuffer src, long position) throws IOException {
            if (closed) {
                throw new IOException("closed");
            }
            int n = src.remaining();
            long end = position + n;
            if (end > LIMIT) {
                throw new IOException("an in-memory recording holds at most " + LIMIT + " bytes");
            }
            if (end > bytes.length) {
                bytes = java.util.Arrays.copyOf(bytes, (int) Math.min(LIMIT, Math.max(end, 2L * bytes.length)));
            }
            src.get(bytes, (int) position, n);
            size = Math.max(size, end);
            return n;
        }

        @Override
        public void commit() {
        }

        @Override
        public void close() {
            closed = true;
            bytes = new byte[0];
            size = 0;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public HwException cannotWrite(IOException e) {
            return new HwException(Cause.UNSUPPORTED, name + ": " + e.getMessage(),
                    "record to a file instead (PerfDataWriter.create, or hwtool lbr record -o FILE)");
        }

        MemorySegment image() {
            return MemorySegment.ofArray(bytes).asSlice(0, size).asReadOnly();
        }
    }
}
