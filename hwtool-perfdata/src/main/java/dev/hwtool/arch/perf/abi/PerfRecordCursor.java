package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfBranchSample;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * A reusable, mutable view over a stream of perf records (kernel/events/core.c
 * perf_output_sample and the perf_event_* output functions): {@link #next()} moves to the next
 * record, checks every length and decodes its header and, for a sample, the fixed fields into
 * primitive fields, except IP, TID, TIME, CPU and PERIOD, which their accessors read from the
 * record; arrays (callchain, branch stack and its hw_idx, read values, raw/aux data) stay in the
 * segment and are read by index. So the wrapped bytes must stay as they are until the cursor
 * leaves the record (as a ring's do until data_tail moves past it). Nothing is allocated per
 * record, so one cursor can walk tens of millions of records a second. {@link #toRecord()}
 * builds the allocating {@link PerfRecord} value of the current record.
 *
 * <p>Every length is checked against the record's header size and the data's end; a record that
 * does not fit raises {@link PerfParseException}, and nothing outside {@code [start, end)} is read.
 */
public final class PerfRecordCursor {

    private static final ValueLayout.OfLong U64 = PerfBranchEntry.U64;
    /** U64's var handle, (MemorySegment, long offset) -> long: the hot paths call it directly. */
    private static final VarHandle U64_AT = U64.varHandle();
    // A branch entry's words through var handles of the whole struct perf_branch_entry: each checks
    // the same 24 bytes at the entry's offset (SegmentVarHandle.checkSegment checks the enclosing
    // layout), so C2 commons the three checks of an entry into one, and a consumer's loop over the
    // entries converts one long range check for range-check elimination instead of three (each a
    // chain of min/max per loop entry, JDK-8276116): 16-entry stacks went from 30.8 to 25.5 ns a
    // record (20 ns when C2 inlines the whole loop), 32-entry ones from 33.2 to 27.6.
    private static final VarHandle BRANCH_FROM = PerfBranchEntry.LAYOUT.varHandle(
            MemoryLayout.PathElement.groupElement("from"));
    private static final VarHandle BRANCH_TO = PerfBranchEntry.LAYOUT.varHandle(
            MemoryLayout.PathElement.groupElement("to"));
    private static final VarHandle BRANCH_FLAGS = PerfBranchEntry.LAYOUT.varHandle(
            MemoryLayout.PathElement.groupElement("flags"));
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** struct perf_event_header: u32 type, u16 misc, u16 size. */
    public static final int HEADER_SIZE = 8;

    /**
     * The sample fields that come first in perf_output_sample (kernel/events/core.c) and are 8
     * bytes each: where sample_type selects them, they sit at offsets fixed by the format.
     */
    private static final long FIXED = PerfSample.IDENTIFIER | PerfSample.IP | PerfSample.TID | PerfSample.TIME
            | PerfSample.ADDR | PerfSample.ID | PerfSample.STREAM_ID | PerfSample.CPU | PerfSample.PERIOD;

    /** The FIXED bits in the kernel's output order, and the names the errors give them. */
    private static final long[] FIXED_ORDER = {PerfSample.IDENTIFIER, PerfSample.IP, PerfSample.TID, PerfSample.TIME,
            PerfSample.ADDR, PerfSample.ID, PerfSample.STREAM_ID, PerfSample.CPU, PerfSample.PERIOD};
    private static final String[] FIXED_NAMES = {"identifier", "ip", "pid/tid", "time", "addr", "id", "stream_id",
            "cpu", "period"};

    private final PerfRecordFormat format;
    private final long sampleType;
    private final int sampleIdSize;
    private final int regsUserCount;
    private final int regsIntrCount;

    // The sample layout, decoded from sample_type once: each FIXED field's offset from the start of
    // the record (-1 when sample_type leaves it out), the bytes a sample needs for them all, header
    // included, and whether anything follows them. One size check then covers every fixed field.
    private final int offIdentifier;
    private final int offIp;
    private final int offTid;
    private final int offTime;
    private final int offAddr;
    private final int offId;
    private final int offStreamId;
    private final int offCpu;
    private final int offPeriod;
    private final int fixedSize;
    /** Any of IDENTIFIER, ADDR, ID, STREAM_ID: the fixed fields decodeRareFixed reads. */
    private final boolean rareFixed;
    /** The name of the fixed field at body offset 8*k, for "... does not fit" (need()'s wording). */
    private final String[] fixedNames;
    private final boolean hasTail;
    /** Any of READ, CALLCHAIN, RAW: decodeTailHead's fields. */
    private final boolean tailHead;
    /** Any field after BRANCH_STACK: decodeTailRest's. */
    private final boolean tailRest;
    // sample_type has BRANCH_STACK; branch_sample_type has HW_INDEX, COUNTERS (bits tested once
    // here, not per record, to keep decodeSample under C2's FreqInlineSize)
    private final boolean branchStack;
    private final boolean branchHwIndex;
    private final boolean branchCounters;

    private MemorySegment seg;
    private long pos;
    private long end;

    // header of the current record
    private long at = -1;
    private int type;
    private int misc;
    private int size;

    /**
     * Where the current sample starts while its IP, TID, TIME, CPU and PERIOD are read from the
     * segment when asked for; -1 when the fields below hold them (see {@link #settle()}).
     */
    private long fixedAt = -1;

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
    /** Where hw_idx is, 0 when the sample has none: read only by hwIndex(), as the entries are. */
    private long hwIndexAt;
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

    public PerfRecordCursor(PerfRecordFormat format) {
        this(format, 0);
    }

    /**
     * A cursor whose samples, when sample_type lacks PERIOD, report {@code defaultPeriod}: what
     * perf does with attr.sample_period (tools/perf/util/evsel.c evsel__parse_sample sets
     * data->period from the attr before it reads the sample; with {@code -c N} each sample stands
     * for N events, perf report's "Event count").
     */
    public PerfRecordCursor(PerfRecordFormat format, long defaultPeriod) {
        this.format = format;
        this.period = (format.sampleType() & PerfSample.PERIOD) == 0 ? defaultPeriod : 0;
        this.sampleType = format.sampleType();
        this.sampleIdSize = format.sampleIdSize();
        this.regsUserCount = Long.bitCount(format.sampleRegsUser());
        this.regsIntrCount = Long.bitCount(format.sampleRegsIntr());
        int[] off = new int[FIXED_ORDER.length];
        String[] names = new String[FIXED_ORDER.length];
        int p = HEADER_SIZE;
        int k = 0;
        for (int i = 0; i < FIXED_ORDER.length; i++) {
            if ((sampleType & FIXED_ORDER[i]) != 0) {
                off[i] = p;
                names[k++] = FIXED_NAMES[i];
                p += 8;
            } else {
                off[i] = -1;
            }
        }
        this.offIdentifier = off[0];
        this.offIp = off[1];
        this.offTid = off[2];
        this.offTime = off[3];
        this.offAddr = off[4];
        this.offId = off[5];
        this.offStreamId = off[6];
        this.offCpu = off[7];
        this.offPeriod = off[8];
        this.fixedSize = p;
        this.rareFixed = (sampleType & (PerfSample.IDENTIFIER | PerfSample.ADDR | PerfSample.ID | PerfSample.STREAM_ID)) != 0;
        this.fixedNames = java.util.Arrays.copyOf(names, k);
        this.hasTail = (sampleType & ~FIXED) != 0;
        this.branchStack = (sampleType & PerfSample.BRANCH_STACK) != 0;
        this.branchHwIndex = (format.branchSampleType() & PerfBranchSample.HW_INDEX) != 0;
        this.branchCounters = (format.branchSampleType() & PerfBranchSample.COUNTERS) != 0;
        this.tailHead = (sampleType & (PerfSample.READ | PerfSample.CALLCHAIN | PerfSample.RAW)) != 0;
        this.tailRest = (sampleType & ~(FIXED | PerfSample.READ | PerfSample.CALLCHAIN | PerfSample.RAW
                | PerfSample.BRANCH_STACK)) != 0;
        // What a field that sample_type leaves out reads as; next() never writes those again.
        this.pid = -1;
        this.tid = -1;
        this.cpu = -1;
    }

    public PerfRecordFormat format() {
        return format;
    }

    /** Walk the records in {@code [start, end)} of {@code seg}, from before the first. */
    public PerfRecordCursor wrap(MemorySegment seg, long start, long end) {
        if (start < 0 || end < start || end > seg.byteSize()) {
            throw new IndexOutOfBoundsException("records [" + start + ", " + end + ") outside a segment of "
                    + seg.byteSize() + " bytes");
        }
        settle();
        this.seg = seg;
        this.pos = start;
        this.end = end;
        this.at = -1;
        return this;
    }

    /** Walk all of {@code seg}. */
    public PerfRecordCursor wrap(MemorySegment seg) {
        return wrap(seg, 0, seg.byteSize());
    }

    /**
     * Moves to the next record.
     *
     * @return false at the end of the data
     * @throws PerfParseException when the next record is malformed; the cursor then stays at the end
     */
    public boolean next() {
        long start = pos;
        long left = end - start;
        if (left <= 0) {
            return false;
        }
        if (left < HEADER_SIZE) {
            throw endOfData(start, left + " bytes left, less than a record header");
        }
        // struct perf_event_header as one little-endian u64: type in bits 0-31, misc 32-47, size 48-63.
        long h = (long) U64_AT.get(seg, start);
        int t = (int) h;
        int s = (int) (h >>> 48);
        if (s < HEADER_SIZE || s > left) {
            throw badSize(start, s, left);
        }
        at = start;
        type = t;
        misc = (int) (h >>> 32) & 0xffff;
        size = s;
        pos = start + s;
        // Every error below goes through malformed(), which leaves the cursor at the end with no
        // current record; the messages are built there and in the other cold methods, so that
        // this method and decodeSample stay small enough for the JIT to inline into a caller's loop.
        if (t == PerfRecordType.SAMPLE) {
            decodeSample(start, s);
        } else {
            settle();
            decodeSampleId();
        }
        return true;
    }

    /** The data ends inside a header. */
    private PerfParseException endOfData(long start, String why) {
        settle();
        pos = end;
        return new PerfParseException(start, why);
    }

    private PerfParseException badSize(long start, int s, long left) {
        return endOfData(start, s < HEADER_SIZE ? "header size " + s + " is smaller than the header"
                : "record of " + s + " bytes runs past the end of the data (" + left + " left)");
    }

    /** The current record does not hold what its header and the format say: no current record any more. */
    private PerfParseException malformed(String why) {
        settle();
        long a = at;
        pos = end;
        at = -1;
        return new PerfParseException(a, why);
    }

    // ---- decoding ---------------------------------------------------------------------------------

    private long limit() {
        return at + size;
    }

    private void need(long p, long n, String what) {
        if (n < 0 || p + n > limit() || p + n < p) {
            throw doesNotFit(what);
        }
    }

    private PerfParseException doesNotFit(String what) {
        return malformed(what + " does not fit in the record's " + size + " bytes");
    }

    private long u64(long p, String what) {
        need(p, 8, what);
        return (long) U64_AT.get(seg, p);
    }

    /**
     * A sample: the fixed fields at their precomputed offsets under one size check, then, only if
     * sample_type asks for more, the rest field by field. Fields sample_type leaves out are never
     * written, so they keep the defaults the constructor gave them; fields of the tail that a
     * record may or may not carry (hw_idx, branch counters, registers, stack) are reset where read.
     *
     * <p>Shaped for C2, which is what lets a caller's loop run at C's speed: a hot callee inlines
     * only up to FreqInlineSize (325 bytecodes), and a call site that the profile finds in fewer
     * than a quarter of the caller's invocations (InlineFrequencyRatio) only up to MaxInlineSize
     * (35). So the rare fixed fields are a method of their own, the common ones are read by their
     * accessors (see {@link #settle()}), and the branch stack (PERF_SAMPLE_BRANCH_STACK) is
     * decoded here rather than in a callee: as a callee, a
     * JVM that had first parsed samples of another format (without branch stacks) called it once
     * per record, at 17 rather than 29 M records/s for 16 entries. The other tail fields, rare in
     * hot loops, are in decodeTailHead (before the branch stack) and decodeTailRest (after it).
     */
    private void decodeSample(long a, int sz) {
        if (sz < fixedSize) {
            // The first fixed field that does not fit: the error need() gives field by field.
            throw doesNotFit(fixedNames[(sz - HEADER_SIZE) >>> 3]);
        }
        fixedAt = a;
        if (rareFixed) {
            decodeRareFixed(seg, a);
        }
        if (!hasTail) {
            return;
        }
        long p = a + fixedSize;
        if (tailHead) {
            p = decodeTailHead(p);
        }
        if (branchStack) {
            // need()'s and count()'s checks written out, each failing with their message: in a
            // caller's loop that also reads the entries, C2 reaches its node-count cut-off
            // (NodeCountInliningCutoff) by here and left even u64() and need() as calls per record.
            // The lengths are small (nr <= sz < 2^16), so none of the sums overflows.
            long lim = a + sz;
            if (p + 8 > lim) {
                throw doesNotFit("branch nr");
            }
            long nr = (long) U64_AT.get(seg, p);
            p += 8;
            hwIndexAt = 0;
            countersAt = 0;
            // No stack captured: the kernel writes only nr = 0, without hw_idx (perf_output_sample).
            if (nr != 0 && branchHwIndex) {
                // Checked here, read when asked for, as the entries are: one memory access less
                // (each inlines to a few hundred C2 nodes) in the caller's loop.
                if (p + 8 > lim) {
                    throw doesNotFit("branch hw_idx");
                }
                hwIndexAt = p;
                p += 8;
            }
            if (nr < 0 || nr > sz || nr * PerfBranchEntry.SIZE > lim - p) {
                throw tooMany(nr, "branch stack");
            }
            branchNr = (int) nr;
            branchAt = p;
            p += PerfBranchEntry.SIZE * nr;
            if (nr != 0 && branchCounters) {
                if (p + 8 * nr > lim) {
                    throw doesNotFit("branch counters");
                }
                countersAt = p;
                p += 8 * nr;
            }
        }
        if (tailRest) {
            decodeTailRest(p);
        }
    }

    /**
     * Moves the current sample's IP, TID, TIME, CPU and PERIOD from its bytes into the fields,
     * where they stay for what follows: a record of another type keeps the last sample's ip and
     * period (decodeSampleId overwrites the others), as does a malformed record that fails before
     * its own fixed fields. Called before the cursor leaves the sample's bytes (the next record
     * when it is not a sample, an error, {@link #wrap}), so they are still there.
     *
     * <p>Why not decode them in next(): each memory access inlines to about 900 C2 nodes, and a
     * consumer's {@code while (c.next())} loop parses next() twice (ciTypeFlow clones a loop head
     * that tests the exit), so five accesses there cost about 9000 of the 18000 nodes after which
     * C2 stops inlining (NodeCountInliningCutoff): the loop over 16-entry branch stacks reached it
     * in some JVMs and not others, and then called Unsafe.getLongUnaligned for the branch nr once a
     * record (25.5 rather than 20 ns). Read by the accessors, they are parsed once, in the body.
     */
    private void settle() {
        if (fixedAt >= 0) {
            long v = ip();
            int p = pid();
            int t = tid();
            long tm = time();
            int c = cpu();
            long pd = period();
            fixedAt = -1;
            ip = v;
            pid = p;
            tid = t;
            time = tm;
            cpu = c;
            period = pd;
        }
    }

    /** IDENTIFIER, ADDR, ID and STREAM_ID, where sample_type asks for any of them. */
    private void decodeRareFixed(MemorySegment g, long a) {
        if (offIdentifier >= 0) {
            identifier = g.get(U64, a + offIdentifier);
        }
        if (offAddr >= 0) {
            addr = g.get(U64, a + offAddr);
        }
        if (offId >= 0) {
            id = g.get(U64, a + offId);
        }
        if (offStreamId >= 0) {
            streamId = g.get(U64, a + offStreamId);
        }
    }

    /** READ, CALLCHAIN and RAW (the fields between PERIOD and BRANCH_STACK), from {@code p}; returns the end. */
    private long decodeTailHead(long p) {
        long st = sampleType;
        if ((st & PerfSample.READ) != 0) {
            long rf = format.readFormat();
            long members = 1;
            if ((rf & PerfFormat.GROUP) != 0) {
                members = u64(p, "read nr");
                if (members < 0 || members > size) {
                    throw malformed("group read of " + Long.toUnsignedString(members) + " counters does not fit");
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
        return p;
    }

    /** The fields after BRANCH_STACK, from {@code p}, each length checked against the record's size. */
    private void decodeTailRest(long p) {
        long st = sampleType;
        if ((st & PerfSample.REGS_USER) != 0) {
            regsUserAbi = u64(p, "regs_user abi");
            p += 8;
            regsUserAt = 0;
            if (regsUserAbi != 0) { // PERF_SAMPLE_REGS_ABI_NONE: no registers follow
                need(p, 8L * regsUserCount, "regs_user");
                regsUserAt = p;
                p += 8L * regsUserCount;
            }
        }
        if ((st & PerfSample.STACK_USER) != 0) {
            stackUserSize = u64(p, "stack_user size");
            p += 8;
            stackUserAt = 0;
            stackUserDynSize = 0;
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
            regsIntrAt = 0;
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
        // nr <= (limit - p) / width without the division (a 64-bit divide costs tens of cycles per
        // record): p <= limit here, and nr <= size (< 2^16) keeps nr * width from overflowing.
        if (nr < 0 || nr > size || nr * width > limit() - p) {
            throw tooMany(nr, what);
        }
        return (int) nr;
    }

    private PerfParseException tooMany(long nr, String what) {
        return malformed(what + " of " + Long.toUnsignedString(nr) + " entries does not fit in the"
                + " record's " + size + " bytes");
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
            throw malformed("record of " + size + " bytes is too short for its body and a "
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

    // IP, TID, TIME, CPU and PERIOD: read from the current sample while fixedAt says so (settle()).
    // Two tests rather than one of (f | o): C2 folds the repeated f >= 0 of a consumer's accessors
    // into the first, and o >= 0 is loop invariant; plain samples took 3.0 rather than 3.57 ns.

    public long ip() {
        long f = fixedAt;
        int o = offIp;
        return f >= 0 && o >= 0 ? (long) U64_AT.get(seg, f + o) : ip;
    }

    /** pid of the sample or sample_id; -1 when TID is not in sample_type. */
    public int pid() {
        long f = fixedAt;
        int o = offTid;
        return f >= 0 && o >= 0 ? (int) (long) U64_AT.get(seg, f + o) : pid; // u32 pid, u32 tid
    }

    public int tid() {
        long f = fixedAt;
        int o = offTid;
        return f >= 0 && o >= 0 ? (int) ((long) U64_AT.get(seg, f + o) >>> 32) : tid;
    }

    public long time() {
        long f = fixedAt;
        int o = offTime;
        return f >= 0 && o >= 0 ? (long) U64_AT.get(seg, f + o) : time;
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
        long f = fixedAt;
        int o = offCpu;
        return f >= 0 && o >= 0 ? (int) (long) U64_AT.get(seg, f + o) : cpu; // u32 cpu, u32 res
    }

    public long period() {
        long f = fixedAt;
        int o = offPeriod;
        return f >= 0 && o >= 0 ? (long) U64_AT.get(seg, f + o) : period;
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
        return hwIndexAt != 0;
    }

    /** The branch stack's hw_idx (the LBR's top of stack), 0 when the sample has none. */
    public long hwIndex() {
        return hwIndexAt == 0 ? 0 : seg.get(U64, hwIndexAt);
    }

    // The branch accessors are kept tiny (a report calls three per entry, 16-32 entries a sample) so
    // that the JIT inlines them into the caller's loop whatever its budget.

    /** Where entry {@code i} of the branch stack starts (checked against the stack's length). */
    private long branchEntry(int i) {
        return branchAt + (long) PerfBranchEntry.SIZE * java.util.Objects.checkIndex(i, branchNr);
    }

    public long branchFrom(int i) {
        return (long) BRANCH_FROM.get(seg, branchEntry(i));
    }

    public long branchTo(int i) {
        return (long) BRANCH_TO.get(seg, branchEntry(i));
    }

    public long branchFlags(int i) {
        return (long) BRANCH_FLAGS.get(seg, branchEntry(i));
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

    // ---- the allocating view ----------------------------------------------------------------------

    /** The current record as a value. */
    public PerfRecord toRecord() {
        requireRecord();
        PerfRecord.SampleId sid = sampleIdSize == 0 ? PerfRecord.SampleId.NONE
                : new PerfRecord.SampleId(pid(), tid(), time(), id, streamId, cpu());
        return switch (type) {
            case PerfRecordType.SAMPLE -> sample();
            case PerfRecordType.MMAP -> {
                requireBody(40);
                yield new PerfRecord.Mmap(misc, bodyU32(0), bodyU32(4), bodyU64(8), bodyU64(16), bodyU64(24),
                        string(HEADER_SIZE + 32), sid);
            }
            case PerfRecordType.MMAP2 -> {
                requireBody(72);
                boolean buildId = (misc & PerfRecordMisc.MMAP_BUILD_ID) != 0;
                byte[] bid = new byte[0];
                if (buildId) {
                    int n = Math.min(20, Byte.toUnsignedInt(seg.get(ValueLayout.JAVA_BYTE, at + HEADER_SIZE + 32)));
                    bid = seg.asSlice(at + HEADER_SIZE + 36, n).toArray(ValueLayout.JAVA_BYTE);
                }
                yield new PerfRecord.Mmap2(misc, bodyU32(0), bodyU32(4), bodyU64(8), bodyU64(16), bodyU64(24),
                        buildId ? 0 : bodyU32(32), buildId ? 0 : bodyU32(36), buildId ? 0 : bodyU64(40),
                        buildId ? 0 : bodyU64(48), bid, bodyU32(56), bodyU32(60), string(HEADER_SIZE + 64), sid);
            }
            case PerfRecordType.COMM -> {
                requireBody(16);
                yield new PerfRecord.Comm(misc, bodyU32(0), bodyU32(4), string(HEADER_SIZE + 8), sid);
            }
            case PerfRecordType.EXIT, PerfRecordType.FORK -> {
                requireBody(24);
                yield new PerfRecord.Task(type, misc, bodyU32(0), bodyU32(4), bodyU32(8), bodyU32(12), bodyU64(16), sid);
            }
            case PerfRecordType.LOST -> {
                requireBody(16);
                yield new PerfRecord.Lost(misc, bodyU64(0), bodyU64(8), sid);
            }
            case PerfRecordType.LOST_SAMPLES -> {
                requireBody(8);
                yield new PerfRecord.LostSamples(misc, bodyU64(0), sid);
            }
            case PerfRecordType.THROTTLE -> {
                requireBody(24);
                yield new PerfRecord.Throttle(misc, bodyU64(0), bodyU64(8), bodyU64(16), sid);
            }
            case PerfRecordType.UNTHROTTLE -> {
                requireBody(24);
                yield new PerfRecord.Unthrottle(misc, bodyU64(0), bodyU64(8), bodyU64(16), sid);
            }
            case PerfRecordType.AUX -> {
                requireBody(24);
                yield new PerfRecord.Aux(misc, bodyU64(0), bodyU64(8), bodyU64(16), sid);
            }
            case PerfRecordType.ITRACE_START -> {
                requireBody(8);
                yield new PerfRecord.ItraceStart(misc, bodyU32(0), bodyU32(4), sid);
            }
            case PerfRecordType.SWITCH -> new PerfRecord.Switch(misc, sid);
            case PerfRecordType.SWITCH_CPU_WIDE -> {
                requireBody(8);
                yield new PerfRecord.SwitchCpuWide(misc, bodyU32(0), bodyU32(4), sid);
            }
            default -> new PerfRecord.Unknown(type, misc, size);
        };
    }

    private void requireBody(int bytes) {
        if (size - HEADER_SIZE - (hasSampleId(type) ? sampleIdSize : 0) < bytes) {
            throw new PerfParseException(at, "record type " + type + " of " + size + " bytes is shorter than its "
                    + bytes + "-byte body");
        }
    }

    /** A NUL-terminated string starting {@code from} bytes into the record, ending before the sample_id. */
    private String string(int from) {
        long s = at + from;
        long e = limit() - (hasSampleId(type) ? sampleIdSize : 0);
        long n = 0;
        while (s + n < e && seg.get(ValueLayout.JAVA_BYTE, s + n) != 0) {
            n++;
        }
        return new String(seg.asSlice(s, n).toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
    }

    private PerfRecord.Sample sample() {
        List<Long> chain = new ArrayList<>(callchainNr);
        for (int i = 0; i < callchainNr; i++) {
            chain.add(callchain(i));
        }
        Optional<PerfRecord.BranchStack> branches = Optional.empty();
        if ((sampleType & PerfSample.BRANCH_STACK) != 0) {
            List<PerfBranchEntry> entries = new ArrayList<>(branchNr);
            List<Long> counters = new ArrayList<>();
            for (int i = 0; i < branchNr; i++) {
                entries.add(new PerfBranchEntry(branchFrom(i), branchTo(i), branchFlags(i)));
                if (countersAt != 0) {
                    counters.add(branchCounter(i));
                }
            }
            branches = Optional.of(new PerfRecord.BranchStack(entries,
                    hasHwIndex() ? OptionalLong.of(hwIndex()) : OptionalLong.empty(), counters));
        }
        return new PerfRecord.Sample(misc, identifier, ip(), pid(), tid(), time(), addr, id, streamId, cpu(), period(),
                readLen == 0 ? Optional.empty() : Optional.of(readValues()), chain, bytes(rawAt, rawSize), branches,
                longs(regsUserAt, regsUserAt == 0 ? 0 : regsUserCount), bytes(stackUserAt, stackUserSize), weight,
                dataSrc, transaction, longs(regsIntrAt, regsIntrAt == 0 ? 0 : regsIntrCount), physAddr, cgroup,
                dataPageSize, codePageSize, bytes(auxAt, auxSize));
    }

    private byte[] bytes(long p, long n) {
        return n == 0 ? new byte[0] : seg.asSlice(p, n).toArray(ValueLayout.JAVA_BYTE);
    }

    private long[] longs(long p, int n) {
        long[] out = new long[n];
        for (int i = 0; i < n; i++) {
            out[i] = seg.get(U64, p + 8L * i);
        }
        return out;
    }

    @Override
    public String toString() {
        return at < 0 ? "PerfRecordCursor{before a record}"
                : "PerfRecordCursor{offset=" + at + ", type=" + type + ", misc=0x" + Integer.toHexString(misc)
                + ", size=" + size + "}";
    }
}
