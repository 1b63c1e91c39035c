package dev.hwtool.linux.perf;

import dev.hwtool.arch.perf.abi.PerfMmapPageField;
import dev.hwtool.arch.perf.abi.PerfParseException;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfRecordParser;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfUserPage;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A perf event's mapping: the user page ({@code struct perf_event_mmap_page}) followed by
 * 2^n data pages, and optionally the AUX area (include/uapi/linux/perf_event.h, struct perf_event_mmap_page). Mapped read-write, so the
 * reader owns data_tail and the kernel never overwrites unread records (it counts them as
 * PERF_RECORD_LOST instead).
 *
 * <p>The protocol of the header comment of include/uapi/linux/perf_event.h and
 * tools/lib/perf/mmap.c: load data_head with acquire semantics (smp_rmb after the load), read the
 * records up to it, then store data_tail with release semantics (smp_mb before the store) so the
 * kernel sees the space free only after the reads. Records are 8-byte aligned, may wrap around
 * the end of the data area, and a wrapped one is copied out whole before it is parsed.
 *
 * <p>Not thread-safe: one reader per ring.
 */
@SuppressWarnings("restricted") // the mapping is native memory the kernel shares with us
public final class PerfMmapRing implements AutoCloseable {

    /** x86-64 base page: the ring's unit (perf_mmap works in PAGE_SIZE pages). */
    public static final int PAGE_SIZE = 4096;

    private static final VarHandle U64 = ValueLayout.JAVA_LONG.varHandle();
    /** A record is at most 64 KiB - 1 (u16 size). */
    private static final int MAX_RECORD = 0xFFFF;

    private final PerfEvent event;
    private final NativeBinding binding;
    private final long address;
    private final long length;
    private final MemorySegment page;
    private final MemorySegment data;
    private final long dataSize;
    private final PerfUserPage userPage;
    private final PerfRecordCursor cursor;
    private final MemorySegment scratch = MemorySegment.ofArray(new byte[MAX_RECORD + 1]);
    private long auxAddress;
    private MemorySegment aux;
    private long lostRecords;
    private long lostSamples;
    private long lostReports;
    private long records;
    private boolean closed;

    private PerfMmapRing(PerfEvent event, long address, long length, int dataPages) {
        this.event = event;
        this.binding = event.binding();
        this.address = address;
        this.length = length;
        MemorySegment all = MemorySegment.ofAddress(address).reinterpret(length);
        this.page = all.asSlice(0, PAGE_SIZE);
        this.dataSize = (long) dataPages * PAGE_SIZE;
        this.data = all.asSlice(PAGE_SIZE, dataSize);
        this.userPage = new PerfUserPage(page);
        this.cursor = new PerfRecordCursor(PerfRecordFormat.of(event.attr()));
    }

    static PerfMmapRing map(PerfEvent event, int dataPages) {
        if (dataPages < 0 || (dataPages & (dataPages - 1)) != 0) {
            throw new IllegalArgumentException("data pages must be 0 or a power of 2, got " + dataPages);
        }
        long length = (1L + dataPages) * PAGE_SIZE;
        long addr;
        try {
            addr = event.binding().mmap(0, length, NativeBinding.PROT_READ | NativeBinding.PROT_WRITE,
                    NativeBinding.MAP_SHARED, event.fd(), 0);
        } catch (ErrnoException e) {
            throw event.errors().mmap(e.errno(), "ring of 1+" + dataPages + " pages", length, e);
        }
        return new PerfMmapRing(event, addr, length, dataPages);
    }

    public PerfEvent event() {
        return event;
    }

    /** The self-monitoring view of page 0. */
    public PerfUserPage userPage() {
        return userPage;
    }

    /** The user page's bytes (for diagnostics and tests). */
    public MemorySegment pageSegment() {
        return page;
    }

    public long dataSize() {
        return dataSize;
    }

    /** data_head, loaded with acquire semantics: records before it are fully written. */
    public long dataHead() {
        return (long) U64.getAcquire(page, (long) PerfMmapPageField.DATA_HEAD.offset());
    }

    public long dataTail() {
        return (long) U64.get(page, (long) PerfMmapPageField.DATA_TAIL.offset());
    }

    /** data_offset and data_size as the kernel initialised them (perf_event_init_userpage). */
    public long kernelDataOffset() {
        return (long) U64.get(page, (long) PerfMmapPageField.DATA_OFFSET.offset());
    }

    public long kernelDataSize() {
        return (long) U64.get(page, (long) PerfMmapPageField.DATA_SIZE.offset());
    }

    /**
     * Visits every record written since the last poll and then frees their space (data_tail).
     * The cursor passed to {@code v} is valid only during the call. PERF_RECORD_LOST and
     * LOST_SAMPLES are counted into {@link #lostRecords()} / {@link #lostSamples()} and visited too.
     *
     * @return the number of records visited
     * @throws PerfParseException on a malformed record (the ring is then left unconsumed)
     */
    public long poll(PerfRecordParser.Visitor v) {
        if (dataSize == 0) {
            return 0;
        }
        long head = dataHead();
        long tail = dataTail();
        long mask = dataSize - 1;
        long n = 0;
        while (tail < head) {
            long pos = tail & mask;
            int size = headerSize(pos);
            if (size < PerfRecordCursor.HEADER_SIZE || size > head - tail) {
                throw new PerfParseException(tail, "ring record size " + size + " with " + (head - tail)
                        + " bytes between data_tail and data_head");
            }
            if (pos + size <= dataSize) {
                cursor.wrap(data, pos, pos + size);
            } else { // wraps around the end: copy both parts out
                long first = dataSize - pos;
                MemorySegment.copy(data, pos, scratch, 0, first);
                MemorySegment.copy(data, 0, scratch, first, size - first);
                cursor.wrap(scratch, 0, size);
            }
            cursor.next();
            if (cursor.type() == PerfRecordType.LOST) {
                lostRecords += cursor.bodyU64(8);
                lostReports++;
            } else if (cursor.type() == PerfRecordType.LOST_SAMPLES) {
                lostSamples += cursor.bodyU64(0);
            }
            v.visit(cursor);
            tail += size;
            n++;
        }
        records += n;
        // The cursor reads a sample's IP, TID, TIME, CPU and PERIOD from its bytes until it moves
        // on, and then keeps them for the records of other types that follow: move it off the last
        // record while the ring still holds it.
        cursor.wrap(data, 0, 0);
        // Release: our reads of the records happen before the kernel may reuse their space.
        U64.setRelease(page, (long) PerfMmapPageField.DATA_TAIL.offset(), tail);
        return n;
    }

    /** The u16 size of the header at pos; the header itself may straddle the end only if misaligned. */
    private int headerSize(long pos) {
        long at = (pos + 6) & (dataSize - 1);
        int lo = Byte.toUnsignedInt(data.get(ValueLayout.JAVA_BYTE, at));
        int hi = Byte.toUnsignedInt(data.get(ValueLayout.JAVA_BYTE, (at + 1) & (dataSize - 1)));
        return lo | hi << 8;
    }

    /** Records the kernel dropped because the ring was full (sum of PERF_RECORD_LOST.lost). */
    public long lostRecords() {
        return lostRecords;
    }

    /** PERF_RECORD_LOST records seen. */
    public long lostReports() {
        return lostReports;
    }

    /** Samples lost in the PMU driver or hardware (sum of PERF_RECORD_LOST_SAMPLES.lost). */
    public long lostSamples() {
        return lostSamples;
    }

    /** Records visited by all polls. */
    public long records() {
        return records;
    }

    // ---- AUX area -----------------------------------------------------------------------------

    /**
     * Maps the AUX area of {@code auxPages} (a power of 2) pages right after the data area: writes
     * aux_offset and aux_size into the user page, then mmaps at that offset (perf_mmap's AUX rules,
     * include/uapi/linux/perf_event.h, struct perf_event_mmap_page). Read-write, so the reader owns aux_tail (no overwrite).
     */
    public MemorySegment mapAux(int auxPages) {
        if (aux != null) {
            throw new IllegalStateException("the AUX area is already mapped");
        }
        if (auxPages <= 0 || (auxPages & (auxPages - 1)) != 0) {
            throw new IllegalArgumentException("AUX pages must be a power of 2, got " + auxPages);
        }
        long offset = PAGE_SIZE + dataSize;
        long size = (long) auxPages * PAGE_SIZE;
        U64.setRelease(page, (long) PerfMmapPageField.AUX_OFFSET.offset(), offset);
        U64.setRelease(page, (long) PerfMmapPageField.AUX_SIZE.offset(), size);
        long addr;
        try {
            addr = binding.mmap(0, size, NativeBinding.PROT_READ | NativeBinding.PROT_WRITE, NativeBinding.MAP_SHARED,
                    event.fd(), offset);
        } catch (ErrnoException e) {
            throw event.errors().mmap(e.errno(), "AUX area of " + auxPages + " pages at offset " + offset, size, e);
        }
        auxAddress = addr;
        aux = MemorySegment.ofAddress(addr).reinterpret(size);
        return aux;
    }

    /** The AUX area, if mapped. */
    public MemorySegment aux() {
        if (aux == null) {
            throw new IllegalStateException("no AUX area mapped");
        }
        return aux;
    }

    public long auxHead() {
        return (long) U64.getAcquire(page, (long) PerfMmapPageField.AUX_HEAD.offset());
    }

    public long auxTail() {
        return (long) U64.get(page, (long) PerfMmapPageField.AUX_TAIL.offset());
    }

    /** Receives AUX data as one contiguous piece (copied out when it wraps). */
    @FunctionalInterface
    public interface AuxConsumer {
        void accept(MemorySegment bytes, long offset, long length);
    }

    /**
     * Hands the AUX bytes between aux_tail and aux_head to {@code c} and frees them (aux_tail,
     * release). Data that wraps around the end of the area is copied into one piece.
     *
     * @return the bytes consumed
     */
    public long pollAux(AuxConsumer c) {
        MemorySegment a = aux();
        long head = auxHead();
        long tail = auxTail();
        long size = a.byteSize();
        long n = head - tail;
        if (n <= 0) {
            return 0;
        }
        if (n > size) { // overwritten: only the last size bytes are there
            tail = head - size;
            n = size;
        }
        long pos = tail & (size - 1);
        if (pos + n <= size) {
            c.accept(a, pos, n);
        } else {
            MemorySegment copy = MemorySegment.ofArray(new byte[(int) n]);
            long first = size - pos;
            MemorySegment.copy(a, pos, copy, 0, first);
            MemorySegment.copy(a, 0, copy, first, n - first);
            c.accept(copy, 0, n);
        }
        U64.setRelease(page, (long) PerfMmapPageField.AUX_TAIL.offset(), head);
        return n;
    }

    /** Unmaps the AUX area and the ring. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            if (aux != null) {
                binding.munmap(auxAddress, aux.byteSize());
                aux = null;
            }
            binding.munmap(address, length);
        } catch (ErrnoException e) {
            throw event.errors().call("munmap of the perf ring of fd " + event.fd(), e.errno(), e);
        } finally {
            event.unmapped(this);
        }
    }
}
