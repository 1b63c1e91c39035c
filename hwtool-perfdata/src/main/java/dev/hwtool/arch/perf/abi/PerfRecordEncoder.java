package dev.hwtool.arch.perf.abi;

import dev.hwtool.arch.perf.PerfBranchSample;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * Writes perf records in the kernel's format (kernel/events/core.c perf_output_sample,
 * perf_event_comm_output, perf_event_mmap_output, perf_log_lost_samples / perf_output_lost,
 * perf_event_task_output) for one event's {@link PerfRecordFormat}, so that a producer other
 * than the kernel — the simulator — hands out the same bytes {@link PerfRecordCursor} reads.
 *
 * <p>Samples: the fields IDENTIFIER, IP, TID, TIME, ADDR, ID, STREAM_ID, CPU, PERIOD and
 * BRANCH_STACK (with hw_idx when branch_sample_type has HW_INDEX), in the kernel's order. Other
 * sample_type bits are refused at construction: a format this encoder would write wrongly is a
 * bug to find at once. Non-sample records end in the sample_id trailer when sample_id_all is set
 * (perf_event__output_id_sample: TID, TIME, ID, STREAM_ID, CPU, IDENTIFIER). Strings are
 * NUL-terminated and padded to a multiple of 8 bytes, as the kernel pads COMM and MMAP2 names.
 *
 * <p>Every record is written into one reusable buffer: the segment a method returns is valid until
 * the next call (copy what you keep). Samples allocate nothing beyond that returned view.
 */
public final class PerfRecordEncoder {

    /** The sample_type bits this encoder writes. */
    public static final long SUPPORTED_SAMPLE_TYPE = PerfSample.IDENTIFIER | PerfSample.IP | PerfSample.TID
            | PerfSample.TIME | PerfSample.ADDR | PerfSample.ID | PerfSample.STREAM_ID | PerfSample.CPU
            | PerfSample.PERIOD | PerfSample.BRANCH_STACK;

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** perf_event_header.size is a u16. */
    public static final int MAX_RECORD = 0xFFF8;

    /** A branch stack read in place (no entry objects): entry 0 is the most recent. */
    public interface BranchStack {
        int size();

        long from(int i);

        long to(int i);

        /** The perf_branch_entry flags word ({@link PerfBranchEntry#flags(boolean, boolean, boolean, boolean, int, int, int, int, int)}). */
        long flags(int i);

        /** The hardware index of the newest entry (the LBR TOS), written when HW_INDEX is asked for. */
        long hwIndex();
    }

    /** An empty branch stack: the kernel then writes nr = 0 only. */
    public static final BranchStack NO_BRANCHES = new BranchStack() {
        public int size() {
            return 0;
        }

        public long from(int i) {
            throw new IndexOutOfBoundsException(i);
        }

        public long to(int i) {
            throw new IndexOutOfBoundsException(i);
        }

        public long flags(int i) {
            throw new IndexOutOfBoundsException(i);
        }

        public long hwIndex() {
            return 0;
        }
    };

    private final PerfRecordFormat format;
    private final long sampleType;
    private final boolean hwIndex;
    private final int sampleIdSize;
    private MemorySegment buf = MemorySegment.ofArray(new long[64]);
    private long pos;

    /** @throws IllegalArgumentException for sample_type bits outside {@link #SUPPORTED_SAMPLE_TYPE} */
    public PerfRecordEncoder(PerfRecordFormat format) {
        long unsupported = format.sampleType() & ~SUPPORTED_SAMPLE_TYPE;
        if (unsupported != 0) {
            throw new IllegalArgumentException("PerfRecordEncoder cannot write sample_type bits 0x"
                    + Long.toHexString(unsupported));
        }
        this.format = format;
        this.sampleType = format.sampleType();
        this.hwIndex = (format.branchSampleType() & PerfBranchSample.HW_INDEX) != 0;
        this.sampleIdSize = format.sampleIdSize();
    }

    public PerfRecordFormat format() {
        return format;
    }

    /**
     * PERF_RECORD_SAMPLE. Fields the format does not sample are ignored; {@code id} is written for
     * IDENTIFIER, ID and STREAM_ID alike (one event, no inheritance).
     */
    public MemorySegment sample(int misc, long ip, int pid, int tid, long time, long addr, long id, int cpu,
                                long period, BranchStack branches) {
        long st = sampleType;
        int n = (st & PerfSample.BRANCH_STACK) == 0 ? 0 : branches.size();
        long size = PerfRecordCursor.HEADER_SIZE + 8L * Long.bitCount(st & ~PerfSample.BRANCH_STACK);
        if ((st & PerfSample.BRANCH_STACK) != 0) {
            size += 8 + (n > 0 && hwIndex ? 8 : 0) + (long) PerfBranchEntry.SIZE * n;
        }
        start(PerfRecordType.SAMPLE, misc, size);
        if ((st & PerfSample.IDENTIFIER) != 0) {
            u64(id);
        }
        if ((st & PerfSample.IP) != 0) {
            u64(ip);
        }
        if ((st & PerfSample.TID) != 0) {
            u32(pid);
            u32(tid);
        }
        if ((st & PerfSample.TIME) != 0) {
            u64(time);
        }
        if ((st & PerfSample.ADDR) != 0) {
            u64(addr);
        }
        if ((st & PerfSample.ID) != 0) {
            u64(id);
        }
        if ((st & PerfSample.STREAM_ID) != 0) {
            u64(id);
        }
        if ((st & PerfSample.CPU) != 0) {
            u32(cpu);
            u32(0);
        }
        if ((st & PerfSample.PERIOD) != 0) {
            u64(period);
        }
        if ((st & PerfSample.BRANCH_STACK) != 0) {
            u64(n);
            // Without a captured stack the kernel writes nr = 0 alone (PerfRecordCursor reads it so).
            if (n > 0 && hwIndex) {
                u64(branches.hwIndex());
            }
            for (int i = 0; i < n; i++) {
                u64(branches.from(i));
                u64(branches.to(i));
                u64(branches.flags(i));
            }
        }
        return finish(size);
    }

    /** PERF_RECORD_COMM {pid, tid, comm[]} (misc {@link PerfRecordMisc#COMM_EXEC} after an exec). */
    public MemorySegment comm(int misc, int pid, int tid, String comm, long time, long id, int cpu) {
        byte[] name = comm.getBytes(StandardCharsets.UTF_8);
        long size = PerfRecordCursor.HEADER_SIZE + 8 + padded(name.length) + sampleIdSize;
        start(PerfRecordType.COMM, misc, size);
        u32(pid);
        u32(tid);
        string(name);
        sampleId(pid, tid, time, id, cpu);
        return finish(size);
    }

    /**
     * PERF_RECORD_MMAP2 {pid, tid, addr, len, pgoff, maj, min, ino, ino_generation, prot, flags,
     * filename[]} (the device/inode form, not the build-id form).
     */
    public MemorySegment mmap2(int misc, int pid, int tid, long addr, long len, long pgoff, int maj, int min,
                               long ino, long inoGeneration, int prot, int flags, String filename, long time, long id,
                               int cpu) {
        byte[] name = filename.getBytes(StandardCharsets.UTF_8);
        long size = PerfRecordCursor.HEADER_SIZE + 64 + padded(name.length) + sampleIdSize;
        start(PerfRecordType.MMAP2, misc & ~PerfRecordMisc.MMAP_BUILD_ID, size);
        u32(pid);
        u32(tid);
        u64(addr);
        u64(len);
        u64(pgoff);
        u32(maj);
        u32(min);
        u64(ino);
        u64(inoGeneration);
        u32(prot);
        u32(flags);
        string(name);
        sampleId(pid, tid, time, id, cpu);
        return finish(size);
    }

    /** PERF_RECORD_LOST {id, lost}: {@code lost} events dropped; the trailer carries {@code id} too. */
    public MemorySegment lost(long id, long lost, int pid, int tid, long time, int cpu) {
        long size = PerfRecordCursor.HEADER_SIZE + 16 + sampleIdSize;
        start(PerfRecordType.LOST, 0, size);
        u64(id);
        u64(lost);
        sampleId(pid, tid, time, id, cpu);
        return finish(size);
    }

    /** PERF_RECORD_EXIT {pid, ppid, tid, ptid, time}. */
    public MemorySegment exit(int pid, int ppid, int tid, int ptid, long time, long id, int cpu) {
        long size = PerfRecordCursor.HEADER_SIZE + 24 + sampleIdSize;
        start(PerfRecordType.EXIT, 0, size);
        u32(pid);
        u32(ppid);
        u32(tid);
        u32(ptid);
        u64(time);
        sampleId(pid, tid, time, id, cpu);
        return finish(size);
    }

    // ---- writing ----

    private static long padded(int stringBytes) {
        return (stringBytes + 1 + 7) & ~7L;
    }

    private void start(int type, int misc, long size) {
        if (size > MAX_RECORD) {
            throw new IllegalArgumentException("a record of " + size + " bytes does not fit perf_event_header.size");
        }
        if (buf.byteSize() < size) {
            buf = MemorySegment.ofArray(new long[(int) ((size + 7) / 8) * 2]);
        }
        buf.set(U32, 0, type);
        buf.set(U16, 4, (short) misc);
        buf.set(U16, 6, (short) size);
        pos = PerfRecordCursor.HEADER_SIZE;
    }

    private void u64(long v) {
        buf.set(U64, pos, v);
        pos += 8;
    }

    private void u32(int v) {
        buf.set(U32, pos, v);
        pos += 4;
    }

    private void string(byte[] s) {
        long n = padded(s.length);
        MemorySegment.copy(MemorySegment.ofArray(s), 0, buf, pos, s.length);
        buf.asSlice(pos + s.length, n - s.length).fill((byte) 0);
        pos += n;
    }

    private void sampleId(int pid, int tid, long time, long id, int cpu) {
        if (sampleIdSize == 0) {
            return;
        }
        long st = sampleType;
        if ((st & PerfSample.TID) != 0) {
            u32(pid);
            u32(tid);
        }
        if ((st & PerfSample.TIME) != 0) {
            u64(time);
        }
        if ((st & PerfSample.ID) != 0) {
            u64(id);
        }
        if ((st & PerfSample.STREAM_ID) != 0) {
            u64(id);
        }
        if ((st & PerfSample.CPU) != 0) {
            u32(cpu);
            u32(0);
        }
        if ((st & PerfSample.IDENTIFIER) != 0) {
            u64(id);
        }
    }

    private MemorySegment finish(long size) {
        if (pos != size) {
            throw new IllegalStateException("encoder wrote " + pos + " bytes of a " + size + "-byte record");
        }
        return buf.asSlice(0, size);
    }
}
