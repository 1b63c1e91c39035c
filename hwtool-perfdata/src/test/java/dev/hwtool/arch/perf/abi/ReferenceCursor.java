package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfBranchSample;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Test oracle: PerfRecordCursor's decoding as first written, one bounds check per field in
 * perf_output_sample's order (kernel/events/core.c), kept verbatim so that
 * PerfRecordCursorDifferentialTest can hold the optimised cursor to the same values and the same
 * errors. Do not optimise this copy.
 *
 * <p>The original's description follows.
 *
 * <p>A reusable, mutable view over a stream of perf records (kernel/events/core.c
 * perf_output_sample and the perf_event_* output functions): {@link #next()} moves to the next
 * record and decodes its header and, for a sample, every fixed field into primitive fields;
 * arrays (callchain, branch stack, read values, raw/aux data) stay in the segment and are read by
 * index. Nothing is allocated per record, so one cursor can walk tens of millions of records a
 * second. {@link #toRecord()} builds the allocating {@link PerfRecord} value of the current record.
 *
 * <p>Every length is checked against the record's header size and the data's end; a record that
 * does not fit raises {@link PerfParseException}, and nothing outside {@code [start, end)} is read.
 */
final class ReferenceCursor {

    private static final ValueLayout.OfLong U64 = PerfBranchEntry.U64;
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** struct perf_event_header: u32 type, u16 misc, u16 size. */
    static final int HEADER_SIZE = 8;

    private final PerfRecordFormat format;
    private final long sampleType;
    private final long branchSampleType;
    private final int sampleIdSize;
    private final int regsUserCount;
    private final int regsIntrCount;

    private MemorySegment seg;
    private long pos;
    private long end;

    // header of the current record
    private long at = -1;
    private int type;
    private int misc;
    private int size;

    // sample fields (and sample_id fields of other records)
    private long identifier;
    private long ip;
    private int pid;
    private int tid;
    private long time;
    private long addr;
    private long id;
    private long streamId;
    private int cpu;
    private long period;
    private long readAt;
    private long readLen;
    private long callchainAt;
    private int callchainNr;
    private long rawAt;
    private int rawSize;
    private long branchAt;
    private int branchNr;
    private long hwIndex;
    private boolean hasHwIndex;
    private long countersAt;
    private long regsUserAt;
    private long regsUserAbi;
    private long stackUserAt;
    private long stackUserSize;
    private long stackUserDynSize;
    private long weight;
    private long dataSrc;
    private long transaction;
    private long regsIntrAt;
    private long regsIntrAbi;
    private long physAddr;
    private long cgroup;
    private long dataPageSize;
    private long codePageSize;
    private long auxAt;
    private long auxSize;

    ReferenceCursor(PerfRecordFormat format) {
        this.format = format;
        this.sampleType = format.sampleType();
        this.branchSampleType = format.branchSampleType();
        this.sampleIdSize = format.sampleIdSize();
        this.regsUserCount = Long.bitCount(format.sampleRegsUser());
        this.regsIntrCount = Long.bitCount(format.sampleRegsIntr());
    }

    public PerfRecordFormat format() {
        return format;
    }

    /** Walk the records in {@code [start, end)} of {@code seg}, from before the first. */
    ReferenceCursor wrap(MemorySegment seg, long start, long end) {
        if (start < 0 || end < start || end > seg.byteSize()) {
            throw new IndexOutOfBoundsException("records [" + start + ", " + end + ") outside a segment of "
                    + seg.byteSize() + " bytes");
        }
        this.seg = seg;
        this.pos = start;
        this.end = end;
        this.at = -1;
        return this;
    }

    /** Walk all of {@code seg}. */
    ReferenceCursor wrap(MemorySegment seg) {
        return wrap(seg, 0, seg.byteSize());
    }

    /**
     * Moves to the next record.
     *
     * @return false at the end of the data
     * @throws PerfParseException when the next record is malformed; the cursor then stays at the end
     */
    public boolean next() {
        if (pos >= end) {
            return false;
        }
        long start = pos;
        if (end - start < HEADER_SIZE) {
            pos = end;
            throw new PerfParseException(start, (end - start) + " bytes left, less than a record header");
        }
        int t = seg.get(U32, start);
        int m = Short.toUnsignedInt(seg.get(U16, start + 4));
        int s = Short.toUnsignedInt(seg.get(U16, start + 6));
        if (s < HEADER_SIZE) {
            pos = end;
            throw new PerfParseException(start, "header size " + s + " is smaller than the header");
        }
        if (s > end - start) {
            pos = end;
            throw new PerfParseException(start, "record of " + s + " bytes runs past the end of the data ("
                    + (end - start) + " left)");
        }
        at = start;
        type = t;
        misc = m;
        size = s;
        pos = start + s;
        try {
            if (t == PerfRecordType.SAMPLE) {
                decodeSample();
            } else {
                decodeSampleId();
            }
        } catch (PerfParseException e) {
            pos = end;
            at = -1;
            throw e;
        }
        return true;
    }

    // ---- decoding ---------------------------------------------------------------------------------

    private long limit() {
        return at + size;
    }

    private void need(long p, long n, String what) {
        if (n < 0 || p + n > limit() || p + n < p) {
            throw new PerfParseException(at, what + " does not fit in the record's " + size + " bytes");
        }
    }

    private long u64(long p, String what) {
        need(p, 8, what);
        return seg.get(U64, p);
    }

    private void decodeSample() {
        long st = sampleType;
        long p = at + HEADER_SIZE;
        identifier = 0;
        ip = 0;
        pid = -1;
        tid = -1;
        time = 0;
        addr = 0;
        id = 0;
        streamId = 0;
        cpu = -1;
        period = 0;
        readAt = readLen = 0;
        callchainAt = 0;
        callchainNr = 0;
        rawAt = 0;
        rawSize = 0;
        branchAt = 0;
        branchNr = 0;
        hwIndex = 0;
        hasHwIndex = false;
        countersAt = 0;
        regsUserAt = regsUserAbi = 0;
        stackUserAt = stackUserSize = stackUserDynSize = 0;
        weight = dataSrc = transaction = 0;
        regsIntrAt = regsIntrAbi = 0;
        physAddr = cgroup = dataPageSize = codePageSize = 0;
        auxAt = auxSize = 0;
        if ((st & PerfSample.IDENTIFIER) != 0) {
            identifier = u64(p, "identifier");
            p += 8;
        }
        if ((st & PerfSample.IP) != 0) {
            ip = u64(p, "ip");
            p += 8;
        }
        if ((st & PerfSample.TID) != 0) {
            need(p, 8, "pid/tid");
            pid = seg.get(U32, p);
            tid = seg.get(U32, p + 4);
            p += 8;
        }
        if ((st & PerfSample.TIME) != 0) {
            time = u64(p, "time");
            p += 8;
        }
        if ((st & PerfSample.ADDR) != 0) {
            addr = u64(p, "addr");
            p += 8;
        }
        if ((st & PerfSample.ID) != 0) {
            id = u64(p, "id");
            p += 8;
        }
        if ((st & PerfSample.STREAM_ID) != 0) {
            streamId = u64(p, "stream_id");
            p += 8;
        }
        if ((st & PerfSample.CPU) != 0) {
            need(p, 8, "cpu");
            cpu = seg.get(U32, p);
            p += 8;
        }
        if ((st & PerfSample.PERIOD) != 0) {
            period = u64(p, "period");
            p += 8;
        }
        if ((st & PerfSample.READ) != 0) {
            long rf = format.readFormat();
            long members = 1;
            if ((rf & PerfFormat.GROUP) != 0) {
                members = u64(p, "read nr");
                if (members < 0 || members > size) {
                    throw new PerfParseException(at, "group read of " + Long.toUnsignedString(members)
                            + " counters does not fit");
                }
            }
            readLen = PerfCounts.byteSize(rf, members);
            need(p, readLen, "read values");
            readAt = p;
            p += readLen;
        }
        if ((st & PerfSample.CALLCHAIN) != 0) {
            long nr = u64(p, "callchain nr");
            p += 8;
            callchainNr = count(nr, 8, p, "callchain");
            callchainAt = p;
            p += 8L * callchainNr;
        }
        if ((st & PerfSample.RAW) != 0) {
            need(p, 4, "raw size");
            long n = Integer.toUnsignedLong(seg.get(U32, p));
            need(p + 4, n, "raw data");
            rawAt = p + 4;
            rawSize = (int) n;
            p += 4 + n; // u32 size + data, padded by the kernel so the whole stays u64-aligned
        }
        if ((st & PerfSample.BRANCH_STACK) != 0) {
            long nr = u64(p, "branch nr");
            p += 8;
            // No stack captured: the kernel writes only nr = 0, without hw_idx (perf_output_sample).
            if (nr != 0 && (branchSampleType & PerfBranchSample.HW_INDEX) != 0) {
                hwIndex = u64(p, "branch hw_idx");
                hasHwIndex = true;
                p += 8;
            }
            branchNr = count(nr, PerfBranchEntry.SIZE, p, "branch stack");
            branchAt = p;
            p += (long) PerfBranchEntry.SIZE * branchNr;
            if (nr != 0 && (branchSampleType & PerfBranchSample.COUNTERS) != 0) {
                need(p, 8L * branchNr, "branch counters");
                countersAt = p;
                p += 8L * branchNr;
            }
        }
        if ((st & PerfSample.REGS_USER) != 0) {
            regsUserAbi = u64(p, "regs_user abi");
            p += 8;
            if (regsUserAbi != 0) { // PERF_SAMPLE_REGS_ABI_NONE: no registers follow
                need(p, 8L * regsUserCount, "regs_user");
                regsUserAt = p;
                p += 8L * regsUserCount;
            }
        }
        if ((st & PerfSample.STACK_USER) != 0) {
            stackUserSize = u64(p, "stack_user size");
            p += 8;
            if (stackUserSize != 0) {
                need(p, stackUserSize, "stack_user data");
                stackUserAt = p;
                p += stackUserSize;
                stackUserDynSize = u64(p, "stack_user dyn_size");
                p += 8;
            }
        }
        if ((st & (PerfSample.WEIGHT | PerfSample.WEIGHT_STRUCT)) != 0) {
            weight = u64(p, "weight");
            p += 8;
        }
        if ((st & PerfSample.DATA_SRC) != 0) {
            dataSrc = u64(p, "data_src");
            p += 8;
        }
        if ((st & PerfSample.TRANSACTION) != 0) {
            transaction = u64(p, "transaction");
            p += 8;
        }
        if ((st & PerfSample.REGS_INTR) != 0) {
            regsIntrAbi = u64(p, "regs_intr abi");
            p += 8;
            if (regsIntrAbi != 0) {
                need(p, 8L * regsIntrCount, "regs_intr");
                regsIntrAt = p;
                p += 8L * regsIntrCount;
            }
        }
        if ((st & PerfSample.PHYS_ADDR) != 0) {
            physAddr = u64(p, "phys_addr");
            p += 8;
        }
        if ((st & PerfSample.CGROUP) != 0) {
            cgroup = u64(p, "cgroup");
            p += 8;
        }
        if ((st & PerfSample.DATA_PAGE_SIZE) != 0) {
            dataPageSize = u64(p, "data_page_size");
            p += 8;
        }
        if ((st & PerfSample.CODE_PAGE_SIZE) != 0) {
            codePageSize = u64(p, "code_page_size");
            p += 8;
        }
        if ((st & PerfSample.AUX) != 0) {
            auxSize = u64(p, "aux size");
            p += 8;
            need(p, auxSize, "aux data");
            auxAt = p;
        }
    }

    /** nr elements of {@code width} bytes starting at p, checked to fit (nr is an unsigned u64). */
    private int count(long nr, int width, long p, String what) {
        long room = (limit() - p) / width;
        if (nr < 0 || nr > room) {
            throw new PerfParseException(at, what + " of " + Long.toUnsignedString(nr) + " entries does not fit in the"
                    + " record's " + size + " bytes");
        }
        return (int) nr;
    }

    /** The sample_id trailer at the end of a non-sample record (perf_event__output_id_sample). */
    private void decodeSampleId() {
        pid = -1;
        tid = -1;
        time = 0;
        id = 0;
        streamId = 0;
        cpu = -1;
        identifier = 0;
        if (sampleIdSize == 0 || !hasSampleId(type)) {
            return;
        }
        long p = limit() - sampleIdSize;
        if (p < at + HEADER_SIZE + bodySize(type)) {
            throw new PerfParseException(at, "record of " + size + " bytes is too short for its body and a "
                    + sampleIdSize + "-byte sample_id");
        }
        long st = sampleType;
        if ((st & PerfSample.TID) != 0) {
            pid = seg.get(U32, p);
            tid = seg.get(U32, p + 4);
            p += 8;
        }
        if ((st & PerfSample.TIME) != 0) {
            time = seg.get(U64, p);
            p += 8;
        }
        if ((st & PerfSample.ID) != 0) {
            id = seg.get(U64, p);
            p += 8;
        }
        if ((st & PerfSample.STREAM_ID) != 0) {
            streamId = seg.get(U64, p);
            p += 8;
        }
        if ((st & PerfSample.CPU) != 0) {
            cpu = seg.get(U32, p);
            p += 8;
        }
        if ((st & PerfSample.IDENTIFIER) != 0) {
            identifier = seg.get(U64, p);
        }
    }

    /** Kernel-generated record types that carry a sample_id trailer when sample_id_all is set. */
    private static boolean hasSampleId(int type) {
        return type >= PerfRecordType.MMAP && type <= PerfRecordType.AUX_OUTPUT_HW_ID && type != PerfRecordType.SAMPLE;
    }

    /** The fixed body bytes of a known non-sample record (strings counted as at least 8). */
    private static int bodySize(int type) {
        return switch (type) {
            case PerfRecordType.MMAP -> 32 + 8;
            case PerfRecordType.MMAP2 -> 64 + 8;
            case PerfRecordType.COMM -> 8 + 8;
            case PerfRecordType.EXIT, PerfRecordType.FORK -> 24;
            case PerfRecordType.LOST -> 16;
            case PerfRecordType.THROTTLE, PerfRecordType.UNTHROTTLE -> 24;
            case PerfRecordType.AUX -> 24;
            case PerfRecordType.ITRACE_START, PerfRecordType.SWITCH_CPU_WIDE -> 8;
            case PerfRecordType.LOST_SAMPLES -> 8;
            default -> 0;
        };
    }

    // ---- header and sample accessors --------------------------------------------------------------

    private void requireRecord() {
        if (at < 0) {
            throw new IllegalStateException("no current record: call next() first");
        }
    }

    /** Where the current record starts in the segment. */
    public long offset() {
        return at;
    }

    /**
     * The current record's bytes, header included ({@code size} bytes): a slice of the wrapped
     * data, valid only as long as that data is (a ring buffer's record only during the visit).
     */
    public MemorySegment recordSegment() {
        requireRecord();
        return seg.asSlice(at, size);
    }

    public int type() {
        return type;
    }

    public int misc() {
        return misc;
    }

    public int size() {
        return size;
    }

    public boolean isSample() {
        return type == PerfRecordType.SAMPLE;
    }

    public long identifier() {
        return identifier;
    }

    public long ip() {
        return ip;
    }

    /** pid of the sample or sample_id; -1 when TID is not in sample_type. */
    public int pid() {
        return pid;
    }

    public int tid() {
        return tid;
    }

    public long time() {
        return time;
    }

    public long addr() {
        return addr;
    }

    public long id() {
        return id;
    }

    public long streamId() {
        return streamId;
    }

    /** -1 when CPU is not in sample_type. */
    public int cpu() {
        return cpu;
    }

    public long period() {
        return period;
    }

    public int callchainLength() {
        return callchainNr;
    }

    public long callchain(int i) {
        return seg.get(U64, callchainAt + 8L * java.util.Objects.checkIndex(i, callchainNr));
    }

    public int branchCount() {
        return branchNr;
    }

    public boolean hasHwIndex() {
        return hasHwIndex;
    }

    public long hwIndex() {
        return hwIndex;
    }

    public long branchFrom(int i) {
        return seg.get(U64, branchAt + (long) PerfBranchEntry.SIZE * java.util.Objects.checkIndex(i, branchNr));
    }

    public long branchTo(int i) {
        return seg.get(U64, branchAt + (long) PerfBranchEntry.SIZE * java.util.Objects.checkIndex(i, branchNr) + 8);
    }

    public long branchFlags(int i) {
        return seg.get(U64, branchAt + (long) PerfBranchEntry.SIZE * java.util.Objects.checkIndex(i, branchNr) + 16);
    }

    public boolean hasBranchCounters() {
        return countersAt != 0;
    }

    public long branchCounter(int i) {
        if (countersAt == 0) {
            throw new IllegalStateException("no branch counters in this sample");
        }
        return seg.get(U64, countersAt + 8L * java.util.Objects.checkIndex(i, branchNr));
    }

    public long weight() {
        return weight;
    }

    public long dataSrc() {
        return dataSrc;
    }

    public long transaction() {
        return transaction;
    }

    public long physAddr() {
        return physAddr;
    }

    public long cgroup() {
        return cgroup;
    }

    public long dataPageSize() {
        return dataPageSize;
    }

    public long codePageSize() {
        return codePageSize;
    }

    public int rawSize() {
        return rawSize;
    }

    public long auxSize() {
        return auxSize;
    }

    /** The sample's READ values; allocates. */
    public PerfCounts readValues() {
        if (readLen == 0) {
            throw new IllegalStateException("no READ values in this record");
        }
        return PerfCounts.read(seg, readAt, readAt + readLen, format.readFormat());
    }

    /** A u64 of the current record's body, {@code offset} bytes after the header, bounds-checked. */
    public long bodyU64(int offset) {
        requireRecord();
        long p = at + HEADER_SIZE + offset;
        need(p, 8, "u64 at body offset " + offset);
        return seg.get(U64, p);
    }

    /** A u32 of the current record's body. */
    public int bodyU32(int offset) {
        requireRecord();
        long p = at + HEADER_SIZE + offset;
        need(p, 4, "u32 at body offset " + offset);
        return seg.get(U32, p);
    }

}
