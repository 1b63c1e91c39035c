package dev.hwtool.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.record.RecordingInfo;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfParseException;
import dev.hwtool.arch.perf.abi.PerfRecord;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfSample;

import dev.hwtool.elf.MappedFiles;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * A perf.data file (version 2, little-endian) mapped for reading: the one {@link PerfDataWriter}
 * writes, or one {@code perf record} wrote, in file mode (104-byte header, attrs and features in
 * sections) or pipe mode ({@code perf record -o -}: a 16-byte header, the attrs, features and
 * event types as records before the kernel's). See {@link PerfFileFormat} for the layout and
 * tools/perf/Documentation/perf.data-file-format.txt.
 *
 * <p>{@link #info()} rebuilds the {@link RecordingInfo}: attrs and ids from the attrs section (pipe
 * mode: PERF_RECORD_HEADER_ATTR), names from HEADER_EVENT_DESC (else perf's name of the attr,
 * evsel__name), backend and target from hwtool's HEADER_CMDLINE (files of other tools: backend
 * "perf record", target their command line), the AUX PMU from the first PERF_RECORD_AUXTRACE_INFO
 * of type intel_bts. Every record is read with its own event's layout: the event is found by the
 * id the record carries (IDENTIFIER, ID, or the sample_id trailer of sample_id_all), as perf's
 * evlist__event2evsel does. PERF_RECORD_COMPRESSED(2) records are decompressed (zstd) into a
 * stream of records that may span them. Every malformed, truncated or unknown part is an {@link
 * HwException} with {@link Cause#BAD_INPUT} naming the file, never another exception, never a
 * sample silently dropped.
 */
public final class PerfDataFile implements AutoCloseable {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** read_format bits this reader knows the layout of (PERF_FORMAT_MAX - 1). */
    private static final long KNOWN_READ_FORMAT = dev.hwtool.arch.perf.abi.PerfFormat.MAX - 1;
    /** branch_sample_type bits up to PERF_SAMPLE_BRANCH_COUNTERS (6.8); later ones may change the layout. */
    private static final long KNOWN_BRANCH_SAMPLE_TYPE = (dev.hwtool.arch.perf.PerfBranchSample.COUNTERS << 1) - 1;

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    private final boolean pipe;
    private final long dataStart;
    private final long dataEnd;
    private final RecordingInfo info;
    private final PerfRecordFormat format;
    private final List<PerfEventAttr> attrs = new ArrayList<>();
    private final List<List<Long>> ids = new ArrayList<>();
    /** Every id of every attr, sorted, and the event each belongs to: looked up without boxing. */
    private long[] idKeys = new long[0];
    private int[] idEvents = new int[0];
    /**
     * Where a sample's id is, in u64 words after the header, and a sample_id trailer's, in words
     * before the record's end (evsel.c evsel__calc_id_pos, __perf_evsel__calc_is_pos); -1: none.
     */
    private final int idPos;
    private final int isPos;
    private final boolean sampleIdAll;
    /** Whether records are put in perf's time order (see {@link #forEach}). */
    private final boolean ordered;
    /**
     * Per event: where a sample's TIME is, in bytes from the record's start, and a sample_id
     * trailer's, in bytes before the record's end; -1 when there is none.
     */
    private final int[] sampleTimeOffset;
    private final int[] idTimeFromEnd;
    private long auxRecords;
    private long compressedRecords;

    private PerfDataFile(Path path, Arena arena, MemorySegment file) {
        this.path = path;
        this.arena = arena;
        this.file = file;
        long size = file.byteSize();
        if (size < 8) {
            throw bad("truncated: " + size + " bytes, less than a perf.data header");
        }
        long magic = file.get(U64, 0);
        if (magic == PerfFileFormat.MAGIC_SWAPPED) {
            throw bad("big-endian perf.data is not supported");
        }
        if (magic == PerfFileFormat.MAGIC_V1) {
            throw bad("perf.data version 1 (PERFFILE) is not supported, only PERFILE2");
        }
        if (magic != PerfFileFormat.MAGIC) {
            throw bad("not a perf.data file (magic 0x" + Long.toHexString(magic) + ", expected \"PERFILE2\")");
        }
        long headerSize = u64(PerfFileFormat.OFF_SIZE, "header size");
        Features features;
        if (headerSize == PerfFileFormat.PIPE_HEADER_SIZE) {
            pipe = true;
            dataStart = PerfFileFormat.PIPE_HEADER_SIZE;
            dataEnd = size;
            features = new Features();
            readPipeHeaderRecords(features);
            if (attrs.isEmpty()) {
                throw bad("pipe-mode perf.data without a PERF_RECORD_HEADER_ATTR: no event to read samples of");
            }
        } else {
            pipe = false;
            if (headerSize != PerfFileFormat.HEADER_SIZE && headerSize != PerfFileFormat.HEADER_SIZE_NO_FEATURES) {
                throw bad("header size " + headerSize + ", expected " + PerfFileFormat.HEADER_SIZE + " (file mode) or "
                        + PerfFileFormat.PIPE_HEADER_SIZE + " (pipe mode)");
            }
            need(0, headerSize, "the file header");
            long attrSize = u64(PerfFileFormat.OFF_ATTR_SIZE, "attr_size");
            long attrsOff = u64(PerfFileFormat.OFF_ATTRS, "attrs offset");
            long attrsSize = u64(PerfFileFormat.OFF_ATTRS + 8, "attrs size");
            dataStart = u64(PerfFileFormat.OFF_DATA, "data offset");
            long dataSize = u64(PerfFileFormat.OFF_DATA + 8, "data size");
            need(dataStart, dataSize, "the data section");
            dataEnd = dataStart + dataSize;
            readAttrs(attrSize, attrsOff, attrsSize);
            features = headerSize == PerfFileFormat.HEADER_SIZE ? Features.table(this) : new Features();
        }
        for (int i = 0; i < attrs.size(); i++) {
            check(i, attrs.get(i));
        }
        indexIds();
        PerfEventAttr first = attrs.get(0);
        format = PerfRecordFormat.of(first);
        sampleIdAll = first.has(PerfAttrFlag.SAMPLE_ID_ALL);
        idPos = idPos(first.sampleType());
        isPos = isPos(first.sampleType());
        ordered = pipe || sampleIdAll;
        sampleTimeOffset = new int[attrs.size()];
        idTimeFromEnd = new int[attrs.size()];
        for (int i = 0; i < attrs.size(); i++) {
            sampleTimeOffset[i] = sampleTimeOffset(attrs.get(i).sampleType());
            idTimeFromEnd[i] = attrs.get(i).has(PerfAttrFlag.SAMPLE_ID_ALL) ? idTimeFromEnd(attrs.get(i).sampleType()) : -1;
        }
        if (attrs.size() > 1) {
            // perf refuses such files too (evlist__valid_sample_type: "non matching sample_type")
            for (int i = 1; i < attrs.size(); i++) {
                long st = attrs.get(i).sampleType();
                if (idPos(st) != idPos || isPos(st) != isPos) {
                    throw bad("events 0 and " + i + " carry their ids at different places (sample_type 0x"
                            + Long.toHexString(first.sampleType()) + " and 0x" + Long.toHexString(st)
                            + "): no record can be told to its event");
                }
            }
            if (idPos < 0) {
                throw bad(attrs.size() + " events whose samples carry no id (neither PERF_SAMPLE_ID nor"
                        + " PERF_SAMPLE_IDENTIFIER): no sample can be told to its event");
            }
        }
        List<String> names = features.eventNames(this);
        List<String> cmdline = features.cmdline(this);
        List<RecordingInfo.Event> events = new ArrayList<>();
        for (int i = 0; i < attrs.size(); i++) {
            String name = i < names.size() ? names.get(i) : EventNames.of(attrs.get(i));
            events.add(new RecordingInfo.Event(name, attrs.get(i), ids.get(i)));
        }
        Optional<List<String>> ours = RecordingCmdline.decode(cmdline);
        String backend = ours.map(l -> l.get(0)).orElse(RecordingCmdline.FOREIGN_BACKEND);
        String target = ours.map(l -> l.get(1)).orElse(String.join(" ", cmdline));
        info = new RecordingInfo(backend, target, events, auxPmu());
    }

    /**
     * Maps {@code file} and reads its header, attrs and features.
     *
     * @throws HwException BAD_INPUT when the file cannot be read or is not a well-formed perf.data
     */
    public static PerfDataFile open(Path file) {
        return MappedFiles.open(file, (arena, seg) -> new PerfDataFile(file, arena, seg));
    }

    /**
     * Reads a perf.data image held in memory ({@link PerfDataWriter#inMemory}'s): the same checks
     * and the same records as {@link #open} of a file with these bytes.
     *
     * @param name what the image is called in messages
     * @throws HwException BAD_INPUT when the bytes are not a well-formed perf.data
     */
    public static PerfDataFile of(String name, MemorySegment image) {
        Arena arena = Arena.ofShared();
        try {
            return new PerfDataFile(Path.of(name), arena, image);
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
    }

    /** The file read; for an image in memory, its name. */
    public Path path() {
        return path;
    }

    public RecordingInfo info() {
        return info;
    }

    /** Whether the file was written in pipe mode ({@code perf record -o -}). */
    public boolean pipe() {
        return pipe;
    }

    /** The record layout of the first event (a file of one event: of every record). */
    public PerfRecordFormat format() {
        return format;
    }

    /** The record layout of event {@code event}. */
    public PerfRecordFormat format(int event) {
        return PerfRecordFormat.of(attrs.get(event));
    }

    /**
     * What a sample of {@code event} stands for when its sample_type lacks PERIOD:
     * attr.sample_period (perf's evsel__parse_sample; in frequency mode the union holds the
     * frequency, and perf uses that number all the same).
     */
    public long defaultPeriod(int event) {
        return attrs.get(event).samplePeriod();
    }

    /** PERF_RECORD_AUX, ITRACE_START and AUXTRACE records met by the last {@link #forEach}. */
    public long auxRecords() {
        return auxRecords;
    }

    void countCompressed(long n) {
        compressedRecords += n;
    }

    /** PERF_RECORD_COMPRESSED(2) records decompressed by the last {@link #forEach}. */
    public long compressedRecords() {
        return compressedRecords;
    }

    /**
     * Visits the data in perf's order (see {@code OrderedRecords}): kernel records with a cursor and
     * their event, AUXTRACE payloads, the records inside COMPRESSED(2) ones as they are
     * decompressed; the records perf itself writes (types 64 and up: HEADER_ATTR, FINISHED_ROUND,
     * ID_INDEX, AUXTRACE_INFO, ...) are not visited (HEADER_TRACING_DATA is skipped with its
     * payload). In a file whose first event lacks sample_id_all, perf reads in file order (session.c
     * perf_session__new: "No sample_id_all support, falling back to unordered processing"), and so
     * does this; pipe mode is always ordered, as in perf.
     *
     * @return the number of kernel records visited
     * @throws HwException BAD_INPUT at the first malformed record (records before it may have been
     *                     visited), or when more records wait to be ordered than {@code OrderedRecords} holds
     */
    public long forEach(RecordVisitor v) {
        PerfRecordCursor[] cursors = new PerfRecordCursor[attrs.size()];
        for (int i = 0; i < cursors.length; i++) {
            cursors[i] = new PerfRecordCursor(PerfRecordFormat.of(attrs.get(i)), defaultPeriod(i));
        }
        auxRecords = 0;
        compressedRecords = 0;
        OrderedRecords order = ordered ? new OrderedRecords(file, this::bad, (seg, q, s, e, copied) -> {
            if (e == OrderedRecords.AUXTRACE) {
                deliverAuxtrace(q, s, v);
            } else {
                deliver(cursors, seg, q, s, v, copied, e);
            }
        }) : null;
        long n = 0;
        long p = dataStart;
        ZstdRecords zstd = null;
        while (p < dataEnd) {
            int size = recordSize(p);
            int type = file.get(U32, p);
            if (type == PerfFileFormat.RECORD_AUXTRACE) {
                long payload = auxtracePayload(p, size);
                auxRecords++;
                if (order == null || !order.queueAuxtrace(p)) {
                    deliverAuxtrace(p, size, v);
                }
                p += size + payload;
                continue;
            }
            if (type == PerfFileFormat.RECORD_COMPRESSED || type == PerfFileFormat.RECORD_COMPRESSED2) {
                if (zstd == null) {
                    zstd = new ZstdRecords(this::bad);
                }
                // the records of consecutive COMPRESSED records form one stream (session.c
                // perf_session__process_compressed_event keeps what is left of a record in
                // decomp_last): the stream is read up to the next record that is not COMPRESSED
                long[] at = {p};
                n += zstd.read(file, at, dataEnd, this, (seg, q, s, round) -> {
                    if (round && order != null) {
                        order.finishedRound();
                    }
                    if (s > 0) {
                        inflated(cursors, order, seg, q, s, v);
                    }
                });
                p = at[0];
                continue;
            }
            if (type >= 0 && type < PerfFileFormat.USER_TYPE_START) {
                int event = eventOf(file, p, size, type);
                long t = order == null ? 0 : timeOf(file, p, size, type, event);
                if (OrderedRecords.timed(t)) {
                    order.queue(t, p, event);
                } else {
                    deliver(cursors, file, p, size, v, false, event);
                }
                n++;
            } else if (type == PerfFileFormat.RECORD_FINISHED_ROUND && order != null) {
                order.finishedRound();
            }
            p += size + extraPayload(p, type);
        }
        if (order != null) {
            order.finish();
        }
        return n;
    }

    /** A record decompressed from COMPRESSED ones, valid during the call: queued as a copy, or visited now. */
    private void inflated(PerfRecordCursor[] cursors, OrderedRecords order, MemorySegment seg, long p, int size,
                          RecordVisitor v) {
        int type = seg.get(U32, p);
        if (type >= PerfFileFormat.USER_TYPE_START || type < 0) {
            if (type == PerfFileFormat.RECORD_AUXTRACE) {
                throw bad("PERF_RECORD_AUXTRACE inside a compressed record: not supported");
            }
            if (type == PerfFileFormat.RECORD_FINISHED_ROUND && order != null) {
                order.finishedRound();
            }
            return;
        }
        int event = eventOf(seg, p, size, type);
        long t = order == null ? 0 : timeOf(seg, p, size, type, event);
        if (OrderedRecords.timed(t)) {
            order.queueCopy(t, seg, p, size, event);
        } else {
            deliver(cursors, seg, p, size, v, true, event);
        }
    }

    private void deliverAuxtrace(long p, int size, RecordVisitor v) {
        v.auxtrace(file.get(U64, p + 16), file.get(U32, p + 40), file.get(U32, p + 36),
                file.asSlice(p + size, file.get(U64, p + 8)));
    }

    /** A kernel record at {@code p} of event {@code event}: with the cursor of its event, to the visitor. */
    private void deliver(PerfRecordCursor[] cursors, MemorySegment seg, long p, int size, RecordVisitor v,
                         boolean inflated, int event) {
        int type = seg.get(U32, p);
        if (type == PerfRecordType.AUX || type == PerfRecordType.ITRACE_START) {
            auxRecords++;
        }
        PerfRecordCursor c = cursors[event];
        c.wrap(seg, p, p + size);
        try {
            c.next();
        } catch (PerfParseException e) {
            throw bad((inflated ? "in compressed data: " : "") + e.getMessage());
        }
        v.record(c, event);
    }

    /**
     * The time perf orders the record by (evsel__parse_sample_timestamp): a sample's TIME field; a
     * non-sample record's from its sample_id trailer when the event has sample_id_all
     * (perf_evsel__parse_id_sample); else -1 (~0: not ordered). A record too short to hold it is not
     * ordered either; reading it then says what is wrong.
     */
    private long timeOf(MemorySegment seg, long p, int size, int type, int event) {
        if (type == PerfRecordType.SAMPLE) {
            int off = sampleTimeOffset[event];
            return off < 0 || off > size - 8 ? -1 : seg.get(U64, p + off);
        }
        int back = idTimeFromEnd[event];
        return back < 0 || back > size - PerfRecordCursor.HEADER_SIZE ? -1 : seg.get(U64, p + size - back);
    }

    /** The event of the record at {@code p}: the one whose ids hold the record's id (evlist__event2evsel). */
    private int eventOf(MemorySegment seg, long p, int size, int type) {
        if (idKeys.length == 0 || attrs.size() == 1) {
            return 0;
        }
        long words = (size - PerfRecordCursor.HEADER_SIZE) >>> 3;
        long id;
        if (type == PerfRecordType.SAMPLE) {
            if (idPos >= words) {
                throw bad("sample at byte " + p + " of " + size + " bytes is too short to hold its id");
            }
            id = seg.get(U64, p + PerfRecordCursor.HEADER_SIZE + 8L * idPos);
        } else {
            if (!sampleIdAll || isPos < 0 || isPos > words) {
                return 0;
            }
            id = seg.get(U64, p + size - 8L * isPos);
        }
        if (id == 0) {
            return 0; // perf: "Synthesized events have an id of zero"
        }
        int k = java.util.Arrays.binarySearch(idKeys, id);
        if (k >= 0) {
            return idEvents[k];
        }
        if (type == PerfRecordType.SAMPLE) {
            throw bad("sample at byte " + p + " carries id " + Long.toUnsignedString(id)
                    + ", which no event of the file lists");
        }
        return 0; // perf cannot parse its sample_id either and skips it; its body is read as event 0's
    }

    /** evsel__parse_sample: IDENTIFIER, IP, TID, then TIME, after the 8-byte header; -1 without TIME. */
    private static int sampleTimeOffset(long st) {
        if ((st & PerfSample.TIME) == 0) {
            return -1;
        }
        int words = 0;
        for (long bit : new long[] {PerfSample.IDENTIFIER, PerfSample.IP, PerfSample.TID}) {
            if ((st & bit) != 0) {
                words++;
            }
        }
        return PerfRecordCursor.HEADER_SIZE + 8 * words;
    }

    /** perf_evsel__parse_id_sample walks back from the end: IDENTIFIER, CPU, STREAM_ID, ID, then TIME. */
    private static int idTimeFromEnd(long st) {
        if ((st & PerfSample.TIME) == 0) {
            return -1;
        }
        int words = 1;
        for (long bit : new long[] {PerfSample.IDENTIFIER, PerfSample.CPU, PerfSample.STREAM_ID, PerfSample.ID}) {
            if ((st & bit) != 0) {
                words++;
            }
        }
        return 8 * words;
    }

    /** evsel__calc_id_pos: IDENTIFIER is word 0; else ID after IP, TID, TIME, ADDR. */
    private static int idPos(long st) {
        if ((st & PerfSample.IDENTIFIER) != 0) {
            return 0;
        }
        if ((st & PerfSample.ID) == 0) {
            return -1;
        }
        int pos = 0;
        for (long bit : new long[] {PerfSample.IP, PerfSample.TID, PerfSample.TIME, PerfSample.ADDR}) {
            if ((st & bit) != 0) {
                pos++;
            }
        }
        return pos;
    }

    /** __perf_evsel__calc_is_pos: IDENTIFIER is the last word; else ID before CPU, STREAM_ID. */
    private static int isPos(long st) {
        if ((st & PerfSample.IDENTIFIER) != 0) {
            return 1;
        }
        if ((st & PerfSample.ID) == 0) {
            return -1;
        }
        int pos = 1;
        if ((st & PerfSample.CPU) != 0) {
            pos++;
        }
        if ((st & PerfSample.STREAM_ID) != 0) {
            pos++;
        }
        return pos;
    }

    /** Bytes after a record that its header size does not count. */
    private long extraPayload(long p, int type) {
        if (type == PerfFileFormat.RECORD_HEADER_TRACING_DATA) {
            int size = recordSize(p);
            if (size < 16) {
                throw bad("PERF_RECORD_HEADER_TRACING_DATA at byte " + p + " has " + size + " bytes, less than 16");
            }
            long n = Integer.toUnsignedLong(file.get(U32, p + 8));
            long padded = (n + 7) & ~7L;
            if (padded > dataEnd - p - size) {
                throw bad("PERF_RECORD_HEADER_TRACING_DATA at byte " + p + " announces " + n
                        + " bytes, past the end of the data");
            }
            return padded;
        }
        return 0;
    }

    private long auxtracePayload(long p, int size) {
        if (size < PerfFileFormat.AUXTRACE_HEADER_SIZE) {
            throw bad("PERF_RECORD_AUXTRACE at byte " + p + " has " + size + " bytes, less than its "
                    + PerfFileFormat.AUXTRACE_HEADER_SIZE);
        }
        long payload = file.get(U64, p + 8);
        long at = p + size;
        if (payload < 0 || payload > dataEnd - at) {
            throw bad("PERF_RECORD_AUXTRACE at byte " + p + " announces " + Long.toUnsignedString(payload)
                    + " bytes, past the end of the data section");
        }
        return payload;
    }

    /** Every kernel record as a value (allocating; {@link #forEach} is the fast path). */
    public List<PerfRecord> records() {
        List<PerfRecord> out = new ArrayList<>();
        forEach(c -> out.add(c.toRecord()));
        return out;
    }

    @Override
    public void close() {
        arena.close();
    }

    // ---- header parts -----------------------------------------------------------------------------

    private void readAttrs(long attrSize, long off, long size) {
        if (attrSize < PerfEventAttr.SIZE_VER0 + PerfFileFormat.SECTION_SIZE
                || attrSize > PerfEventAttr.SIZE_MAX + PerfFileFormat.SECTION_SIZE) {
            throw bad("attr_size " + attrSize + " is not a perf_event_attr plus its ids section");
        }
        need(off, size, "the attrs section");
        if (size == 0 || size % attrSize != 0) {
            throw bad("attrs section of " + size + " bytes does not hold whole attrs of " + attrSize + " bytes");
        }
        int onFile = (int) attrSize - PerfFileFormat.SECTION_SIZE;
        for (long p = off; p < off + size; p += attrSize) {
            byte[] raw = file.asSlice(p, onFile).toArray(ValueLayout.JAVA_BYTE);
            // perf 6.1 read_attr: size 0 means PERF_ATTR_SIZE_VER0
            long declared = Integer.toUnsignedLong(file.get(U32, p + 4));
            if (declared != 0 && declared != onFile) {
                throw bad("attr at byte " + p + " declares " + declared + " bytes in entries of " + onFile);
            }
            attrs.add(PerfEventAttr.decode(raw));
            long idsOff = file.get(U64, p + onFile);
            long idsSize = file.get(U64, p + onFile + 8);
            need(idsOff, idsSize, "the ids of attr " + attrs.size());
            if (idsSize % 8 != 0) {
                throw bad("ids section of " + idsSize + " bytes is not a list of u64");
            }
            List<Long> list = new ArrayList<>();
            for (long q = idsOff; q < idsOff + idsSize; q += 8) {
                list.add(file.get(U64, q));
            }
            ids.add(list);
        }
    }

    /**
     * Pipe mode: the attrs (PERF_RECORD_HEADER_ATTR) and features (PERF_RECORD_HEADER_FEATURE)
     * among the records (perf writes them first; perf inject may add attrs later, so the whole
     * stream's headers are walked, not its bodies).
     */
    private void readPipeHeaderRecords(Features features) {
        long p = dataStart;
        while (p < dataEnd) {
            int size = recordSize(p);
            int type = file.get(U32, p);
            if (type == PerfFileFormat.RECORD_HEADER_ATTR) {
                long body = size - PerfRecordCursor.HEADER_SIZE;
                long attrSize = body >= 8 ? Integer.toUnsignedLong(file.get(U32, p + 12)) : 0;
                if (attrSize == 0) {
                    attrSize = PerfEventAttr.SIZE_VER0;
                }
                if (body < attrSize || attrSize < PerfEventAttr.SIZE_VER0 || (body - attrSize) % 8 != 0) {
                    throw bad("PERF_RECORD_HEADER_ATTR at byte " + p + " of " + size + " bytes does not hold an attr of "
                            + attrSize + " bytes and whole u64 ids");
                }
                attrs.add(PerfEventAttr.decode(file.asSlice(p + 8, attrSize).toArray(ValueLayout.JAVA_BYTE)));
                List<Long> list = new ArrayList<>();
                for (long q = p + 8 + attrSize; q < p + size; q += 8) {
                    list.add(file.get(U64, q));
                }
                ids.add(list);
            } else if (type == PerfFileFormat.RECORD_HEADER_FEATURE) {
                if (size < 16) {
                    throw bad("PERF_RECORD_HEADER_FEATURE at byte " + p + " has " + size + " bytes, less than 16");
                }
                long feat = file.get(U64, p + 8);
                if (feat >= 0 && feat < PerfFileFormat.FEATURE_BITS) {
                    features.offset[(int) feat] = p + 16;
                    features.size[(int) feat] = size - 16;
                }
            } else if (type == PerfFileFormat.RECORD_AUXTRACE) {
                p += auxtracePayload(p, size);
            }
            p += size + extraPayload(p, type);
        }
    }

    /** Refuses what this reader does not know the layout of: a bit it would misparse. */
    private void check(int event, PerfEventAttr a) {
        long unknown = a.sampleType() & -PerfSample.MAX;
        if (unknown != 0) {
            throw bad("event " + event + "'s sample_type 0x" + Long.toHexString(a.sampleType())
                    + " has bits this reader does not know (0x" + Long.toHexString(unknown)
                    + ", after PERF_SAMPLE_WEIGHT_STRUCT): their fields' sizes are unknown");
        }
        if ((a.sampleType() & PerfSample.READ) != 0 && (a.readFormat() & ~KNOWN_READ_FORMAT) != 0) {
            throw bad("event " + event + "'s read_format 0x" + Long.toHexString(a.readFormat())
                    + " has bits this reader does not know (after PERF_FORMAT_LOST)");
        }
        if ((a.sampleType() & PerfSample.BRANCH_STACK) != 0 && (a.branchSampleType() & ~KNOWN_BRANCH_SAMPLE_TYPE) != 0) {
            throw bad("event " + event + "'s branch_sample_type 0x" + Long.toHexString(a.branchSampleType())
                    + " has bits this reader does not know (after PERF_SAMPLE_BRANCH_COUNTERS)");
        }
    }

    private void indexIds() {
        int n = 0;
        for (List<Long> l : ids) {
            n += l.size();
        }
        long[][] pairs = new long[n][];
        int k = 0;
        for (int e = 0; e < ids.size(); e++) {
            for (long id : ids.get(e)) {
                pairs[k++] = new long[] {id, e};
            }
        }
        java.util.Arrays.sort(pairs, (x, y) -> Long.compare(x[0], y[0]));
        idKeys = new long[n];
        idEvents = new int[n];
        for (int i = 0; i < n; i++) {
            idKeys[i] = pairs[i][0];
            idEvents[i] = (int) pairs[i][1];
        }
    }

    /** The first PERF_RECORD_AUXTRACE_INFO of intel_bts, looked for before the first sample. */
    private Optional<RecordingInfo.AuxPmu> auxPmu() {
        long p = dataStart;
        while (p < dataEnd) {
            int size = recordSize(p);
            int type = file.get(U32, p);
            if (type == PerfRecordType.SAMPLE || type == PerfFileFormat.RECORD_AUXTRACE
                    || type == PerfFileFormat.RECORD_COMPRESSED || type == PerfFileFormat.RECORD_COMPRESSED2) {
                return Optional.empty();
            }
            if (type == PerfFileFormat.RECORD_AUXTRACE_INFO && size >= PerfFileFormat.AUXTRACE_INFO_PRIV_OFFSET
                    && file.get(U32, p + 8) == PerfFileFormat.AUXTRACE_INTEL_BTS) {
                // perf reads the first SNAPSHOT_MODE fields (intel-bts.c intel_bts_process_auxtrace_info)
                if (size < PerfFileFormat.AUXTRACE_INFO_PRIV_OFFSET + 8 * PerfFileFormat.BTS_SNAPSHOT_MODE) {
                    throw bad("intel_bts PERF_RECORD_AUXTRACE_INFO at byte " + p + " is too short (" + size + " bytes)");
                }
                long priv = p + PerfFileFormat.AUXTRACE_INFO_PRIV_OFFSET;
                return Optional.of(new RecordingInfo.AuxPmu("intel_bts",
                        (int) file.get(U64, priv + 8L * PerfFileFormat.BTS_PMU_TYPE),
                        (int) file.get(U64, priv + 8L * PerfFileFormat.BTS_TIME_SHIFT),
                        file.get(U64, priv + 8L * PerfFileFormat.BTS_TIME_MULT),
                        file.get(U64, priv + 8L * PerfFileFormat.BTS_TIME_ZERO),
                        file.get(U64, priv + 8L * PerfFileFormat.BTS_CAP_USER_TIME_ZERO) != 0));
            }
            p += size + extraPayload(p, type);
        }
        return Optional.empty();
    }

    /** The header size of the record at {@code p}, checked to lie inside the data section. */
    int recordSize(long p) {
        if (dataEnd - p < 8) {
            throw bad("record at byte " + p + ": " + (dataEnd - p) + " bytes left, less than a record header");
        }
        int size = Short.toUnsignedInt(file.get(U16, p + 6));
        if (size < 8) {
            throw bad("record at byte " + p + ": header size " + size + " is smaller than the header");
        }
        if (size > dataEnd - p) {
            throw bad("record at byte " + p + ": " + size + " bytes run past the end of the data section");
        }
        return size;
    }

    /**
     * The feature sections: in file mode a perf_file_section per set bit of adds_features, after
     * the data; in pipe mode the bodies of PERF_RECORD_HEADER_FEATURE records.
     */
    private static final class Features {
        final long[] offset = new long[PerfFileFormat.FEATURE_BITS];
        final long[] size = new long[PerfFileFormat.FEATURE_BITS];

        static Features table(PerfDataFile f) {
            Features t = new Features();
            long table = f.dataEnd;
            int k = 0;
            for (int bit = 0; bit < PerfFileFormat.FEATURE_BITS; bit++) {
                long word = f.file.get(U64, PerfFileFormat.OFF_FEATURES + 8L * (bit / 64));
                if ((word >>> (bit % 64) & 1) == 0) {
                    continue;
                }
                long s = table + (long) PerfFileFormat.SECTION_SIZE * k++;
                f.need(s, PerfFileFormat.SECTION_SIZE, "the feature table");
                t.offset[bit] = f.file.get(U64, s);
                t.size[bit] = f.file.get(U64, s + 8);
                f.need(t.offset[bit], t.size[bit], "feature section " + bit);
            }
            return t;
        }

        List<String> cmdline(PerfDataFile f) {
            int bit = PerfFeature.CMDLINE.bit();
            if (size[bit] == 0) {
                return List.of();
            }
            Reader r = f.new Reader(offset[bit], size[bit], "HEADER_CMDLINE");
            long nr = r.u32();
            List<String> argv = new ArrayList<>();
            for (long i = 0; i < nr; i++) {
                argv.add(r.string());
            }
            return argv;
        }

        List<String> eventNames(PerfDataFile f) {
            int bit = PerfFeature.EVENT_DESC.bit();
            if (size[bit] == 0) {
                return List.of();
            }
            Reader r = f.new Reader(offset[bit], size[bit], "HEADER_EVENT_DESC");
            long nr = r.u32();
            long attrSize = r.u32();
            List<String> names = new ArrayList<>();
            for (long i = 0; i < nr; i++) {
                r.skip(attrSize);
                long nrIds = r.u32();
                names.add(r.string());
                r.skip(8 * nrIds);
            }
            return names;
        }
    }

    /** Bounds-checked reads inside one feature section. */
    private final class Reader {
        private long p;
        private final long end;
        private final String what;

        Reader(long p, long size, String what) {
            this.p = p;
            this.end = p + size;
            this.what = what;
        }

        private void take(long n) {
            if (n < 0 || n > end - p) {
                throw bad(what + " is truncated at byte " + p);
            }
        }

        long u32() {
            take(4);
            long v = Integer.toUnsignedLong(file.get(U32, p));
            p += 4;
            return v;
        }

        void skip(long n) {
            take(n);
            p += n;
        }

        String string() {
            long len = u32();
            take(len);
            byte[] b = file.asSlice(p, len).toArray(ValueLayout.JAVA_BYTE);
            p += len;
            int n = 0;
            while (n < b.length && b[n] != 0) {
                n++;
            }
            return new String(b, 0, n, StandardCharsets.UTF_8);
        }
    }

    private long u64(long off, String what) {
        need(off, 8, what);
        return file.get(U64, off);
    }

    private void need(long off, long len, String what) {
        if (off < 0 || len < 0 || off > file.byteSize() || len > file.byteSize() - off) {
            throw bad("truncated: " + what + " [" + Long.toUnsignedString(off) + ", +" + Long.toUnsignedString(len)
                    + ") lies outside the file's " + file.byteSize() + " bytes");
        }
    }

    HwException bad(String message) {
        return new HwException(Cause.BAD_INPUT, path + ": " + message);
    }
}
