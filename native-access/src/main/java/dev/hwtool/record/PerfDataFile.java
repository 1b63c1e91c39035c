package dev.hwtool.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.api.RecordingInfo;
import dev.hwtool.arch.perf.PerfEventAttr;
import dev.hwtool.arch.perf.PerfParseException;
import dev.hwtool.arch.perf.PerfRecord;
import dev.hwtool.arch.perf.PerfRecordCursor;
import dev.hwtool.arch.perf.PerfRecordFormat;
import dev.hwtool.arch.perf.PerfRecordType;

import dev.hwtool.io.MappedFiles;

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
 * writes, or one {@code perf record} wrote. See {@link PerfFileFormat} for the layout.
 *
 * <p>{@link #info()} rebuilds the {@link RecordingInfo}: attrs and ids from the attrs section,
 * names from HEADER_EVENT_DESC (else "event N"), backend and target from hwtool's HEADER_CMDLINE
 * (files of other tools: backend "perf record", target their command line), the AUX PMU from the
 * first PERF_RECORD_AUXTRACE_INFO of type intel_bts. Every malformed or truncated part is an
 * {@link HwException} with {@link Cause#BAD_INPUT} naming the file, never another exception.
 */
public final class PerfDataFile implements AutoCloseable {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final Path path;
    private final Arena arena;
    private final MemorySegment file;
    private final long dataStart;
    private final long dataEnd;
    private final RecordingInfo info;
    private final PerfRecordFormat format;

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
        if (headerSize != PerfFileFormat.HEADER_SIZE && headerSize != PerfFileFormat.HEADER_SIZE_NO_FEATURES) {
            throw bad("header size " + headerSize + ", expected " + PerfFileFormat.HEADER_SIZE);
        }
        need(0, headerSize, "the file header");
        long attrSize = u64(PerfFileFormat.OFF_ATTR_SIZE, "attr_size");
        long attrsOff = u64(PerfFileFormat.OFF_ATTRS, "attrs offset");
        long attrsSize = u64(PerfFileFormat.OFF_ATTRS + 8, "attrs size");
        dataStart = u64(PerfFileFormat.OFF_DATA, "data offset");
        long dataSize = u64(PerfFileFormat.OFF_DATA + 8, "data size");
        need(dataStart, dataSize, "the data section");
        dataEnd = dataStart + dataSize;
        List<PerfEventAttr> attrs = new ArrayList<>();
        List<List<Long>> ids = new ArrayList<>();
        readAttrs(attrSize, attrsOff, attrsSize, attrs, ids);
        format = PerfRecordFormat.of(attrs.get(0));
        List<String> names = new ArrayList<>();
        List<String> cmdline = List.of();
        if (headerSize == PerfFileFormat.HEADER_SIZE) {
            Features features = new Features();
            names = features.eventNames();
            cmdline = features.cmdline();
        }
        List<RecordingInfo.Event> events = new ArrayList<>();
        for (int i = 0; i < attrs.size(); i++) {
            String name = i < names.size() ? names.get(i) : "event " + i;
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

    public Path path() {
        return path;
    }

    public RecordingInfo info() {
        return info;
    }

    /** The record layout, from the first event's attr (perf: all events of a file share sample_type). */
    public PerfRecordFormat format() {
        return format;
    }

    /**
     * Visits the data section in order: kernel records with a cursor, AUXTRACE payloads; other
     * records perf synthesizes (types 64 and up: FINISHED_ROUND, ID_INDEX, AUXTRACE_INFO, ...) are
     * skipped by their size.
     *
     * @return the number of kernel records visited
     * @throws HwException BAD_INPUT at the first malformed record (the ones before it were visited)
     */
    public long forEach(RecordVisitor v) {
        PerfRecordCursor c = new PerfRecordCursor(format);
        long n = 0;
        long p = dataStart;
        while (p < dataEnd) {
            int size = recordSize(p);
            int type = file.get(U32, p);
            if (type == PerfFileFormat.RECORD_AUXTRACE) {
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
                v.auxtrace(file.get(U64, p + 16), file.get(U32, p + 40), file.get(U32, p + 36),
                        file.asSlice(at, payload));
                p = at + payload;
                continue;
            }
            if (type >= 0 && type < PerfFileFormat.USER_TYPE_START) {
                c.wrap(file, p, p + size);
                try {
                    c.next();
                } catch (PerfParseException e) {
                    throw bad(e.getMessage());
                }
                v.record(c);
                n++;
            }
            p += size;
        }
        return n;
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

    private void readAttrs(long attrSize, long off, long size, List<PerfEventAttr> attrs, List<List<Long>> ids) {
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

    /** The first PERF_RECORD_AUXTRACE_INFO of intel_bts, looked for before the first sample. */
    private Optional<RecordingInfo.AuxPmu> auxPmu() {
        long p = dataStart;
        while (p < dataEnd) {
            int size = recordSize(p);
            int type = file.get(U32, p);
            if (type == PerfRecordType.SAMPLE || type == PerfFileFormat.RECORD_AUXTRACE) {
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
            p += size;
        }
        return Optional.empty();
    }

    /** The header size of the record at {@code p}, checked to lie inside the data section. */
    private int recordSize(long p) {
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

    /** The feature sections: a perf_file_section per set bit of adds_features, after the data. */
    private final class Features {
        private final long[] offset = new long[PerfFileFormat.FEATURE_BITS];
        private final long[] size = new long[PerfFileFormat.FEATURE_BITS];

        Features() {
            long table = dataEnd;
            int k = 0;
            for (int bit = 0; bit < PerfFileFormat.FEATURE_BITS; bit++) {
                long word = file.get(U64, PerfFileFormat.OFF_FEATURES + 8L * (bit / 64));
                if ((word >>> (bit % 64) & 1) == 0) {
                    continue;
                }
                long s = table + (long) PerfFileFormat.SECTION_SIZE * k++;
                need(s, PerfFileFormat.SECTION_SIZE, "the feature table");
                offset[bit] = file.get(U64, s);
                size[bit] = file.get(U64, s + 8);
                need(offset[bit], size[bit], "feature section " + bit);
            }
        }

        List<String> cmdline() {
            int bit = PerfFeature.CMDLINE.bit();
            if (size[bit] == 0) {
                return List.of();
            }
            Reader r = new Reader(offset[bit], size[bit], "HEADER_CMDLINE");
            long nr = r.u32();
            List<String> argv = new ArrayList<>();
            for (long i = 0; i < nr; i++) {
                argv.add(r.string());
            }
            return argv;
        }

        List<String> eventNames() {
            int bit = PerfFeature.EVENT_DESC.bit();
            if (size[bit] == 0) {
                return List.of();
            }
            Reader r = new Reader(offset[bit], size[bit], "HEADER_EVENT_DESC");
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

    private HwException bad(String message) {
        return new HwException(Cause.BAD_INPUT, path + ": " + message);
    }
}
