package dev.hwtool.record;

import dev.hwtool.api.HwException;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.Function;

/**
 * perf's record order: records are queued by time and flushed round by round, as perf report and
 * perf script read a file (tools/perf/util/ordered-events.c, util/session.c).
 *
 * <ul>
 *   <li>A kernel record whose time is 0 or ~0 (no PERF_SAMPLE_TIME, or a non-sample record without
 *       sample_id_all, or one perf synthesized) is not queued: it is delivered where it is in the
 *       file (ordered_events__queue returns -ETIME, perf_session__process_event delivers it).</li>
 *   <li>Queued records are kept sorted by time; records of equal time keep their file order
 *       (queue_event inserts a record after every queued one of the same time).</li>
 *   <li>At a PERF_RECORD_FINISHED_ROUND (OE_FLUSH__ROUND) the records up to {@code next_flush}
 *       are delivered, then {@code next_flush} becomes the largest time queued before that flush:
 *       a round flushes what the round before the previous one reached, as each per-CPU buffer
 *       perf record drains in a round is sorted but the buffers are not sorted against each
 *       other. {@code next_flush} starts at 0 (do_flush flushes nothing), and an empty queue
 *       leaves it as it is. At the end (OE_FLUSH__FINAL) everything left is delivered.</li>
 * </ul>
 *
 * <p>A record is queued as its time, where it is and its event: a record of the mapped file by its
 * offset (no copy); one that exists only for the moment (decompressed from COMPRESSED records) is
 * copied into a buffer of at most {@link #MAX_COPIED} bytes. At most {@link #MAX_QUEUED} records
 * wait at once (perf's default limit is none: report.queue-size); past either limit the file is
 * refused, never a record dropped. Nothing is allocated per record once the arrays have grown to
 * a round's size.
 */
final class OrderedRecords {

    /** Records waiting at once: 16 bytes of index and 16 of sort scratch each, 256 MiB at most. */
    static final int MAX_QUEUED = 1 << 23;
    /** Bytes of copied (decompressed) records waiting at once. */
    static final int MAX_COPIED = 256 << 20;
    /** The event index of a queued PERF_RECORD_AUXTRACE (its payload follows it in the file). */
    static final int AUXTRACE = -1;

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** Where a queued record goes when it is flushed: valid during the call only. */
    @FunctionalInterface
    interface Delivery {
        void deliver(MemorySegment seg, long p, int size, int event, boolean copied);
    }

    private final MemorySegment file;
    private final Function<String, HwException> bad;
    private final Delivery delivery;

    private long[] time = new long[256];
    /** A file offset (>= 0), or the bitwise complement of an offset in {@link #copies}. */
    private long[] ref = new long[256];
    private int[] event = new int[256];
    private long[] time2 = new long[0];
    private long[] ref2 = new long[0];
    private int[] event2 = new int[0];
    private int[] runs = new int[16];
    private int n;
    private boolean sorted = true;

    /** ordered_events.max_timestamp: the largest time queued (the tail's), 0 before any. */
    private long maxTimestamp;
    /** ordered_events.next_flush. */
    private long nextFlush;
    /** The largest time queued so far: where an AUXTRACE record sits among them. */
    private long lastTime;

    private byte[] copies = new byte[0];
    private MemorySegment copySeg = MemorySegment.ofArray(copies);
    private byte[] spare = new byte[0];
    private int copied;

    OrderedRecords(MemorySegment file, Function<String, HwException> bad, Delivery delivery) {
        this.file = file;
        this.bad = bad;
        this.delivery = delivery;
    }

    /** Whether perf queues a record of this time: not 0, not ~0 (ordered_events__queue). */
    static boolean timed(long t) {
        return t != 0 && t != -1L;
    }

    /** Queues the record at file offset {@code p}, of time {@code t} ({@link #timed}). */
    void queue(long t, long p, int ev) {
        add(t, p, ev);
    }

    /** Queues a copy of a record that is only transiently at {@code seg[p..p+size)}. */
    void queueCopy(long t, MemorySegment seg, long p, int size, int ev) {
        if (size > MAX_COPIED - copied) {
            throw bad.apply("more than " + (MAX_COPIED >> 20) + " MiB of decompressed records to put in time order"
                    + " between two PERF_RECORD_FINISHED_ROUND records (hwtool's limit; perf has none)");
        }
        if (copied + size > copies.length) {
            int cap = (int) Math.min(MAX_COPIED, Math.max(copied + (long) size, 2L * copies.length + 65536));
            byte[] grown = new byte[cap];
            System.arraycopy(copies, 0, grown, 0, copied);
            copies = grown;
            copySeg = MemorySegment.ofArray(copies);
        }
        MemorySegment.copy(seg, p, copySeg, copied, size);
        add(t, ~(long) copied, ev);
        copied += size;
    }

    /**
     * Queues the PERF_RECORD_AUXTRACE at file offset {@code p} after every record read before it:
     * perf queues its data and decodes it as time passes (auxtrace.c), never before the records
     * that precede it. Returns false when no timed record came yet: then it is delivered at once.
     */
    boolean queueAuxtrace(long p) {
        if (lastTime == 0) {
            return false;
        }
        add(lastTime, p, AUXTRACE);
        return true;
    }

    private void add(long t, long r, int ev) {
        if (n == time.length) {
            if (n == MAX_QUEUED) {
                throw bad.apply("more than " + MAX_QUEUED + " records to put in time order between two"
                        + " PERF_RECORD_FINISHED_ROUND records (hwtool's limit; perf has none)");
            }
            int cap = Math.min(MAX_QUEUED, 2 * n);
            time = java.util.Arrays.copyOf(time, cap);
            ref = java.util.Arrays.copyOf(ref, cap);
            event = java.util.Arrays.copyOf(event, cap);
        }
        if (n == 0) {
            maxTimestamp = t;
        } else if (Long.compareUnsigned(t, time[n - 1]) < 0) {
            sorted = false;
        }
        if (Long.compareUnsigned(t, maxTimestamp) > 0) {
            maxTimestamp = t;
        }
        if (Long.compareUnsigned(t, lastTime) > 0) {
            lastTime = t;
        }
        time[n] = t;
        ref[n] = r;
        event[n] = ev;
        n++;
    }

    /** PERF_RECORD_FINISHED_ROUND: ordered_events__flush(OE_FLUSH__ROUND). */
    void finishedRound() {
        if (n == 0) {
            return;
        }
        long max = maxTimestamp;
        flush(nextFlush);
        nextFlush = max;
    }

    /** The end of the data: ordered_events__flush(OE_FLUSH__FINAL). */
    void finish() {
        if (n > 0) {
            flush(-1L);
        }
    }

    /** Records waiting (for tests). */
    int queued() {
        return n;
    }

    /** do_flush: the queued records of time up to {@code limit} (unsigned), in time order. */
    private void flush(long limit) {
        if (limit == 0) {
            return;
        }
        sort();
        int k = 0;
        while (k < n && Long.compareUnsigned(time[k], limit) <= 0) {
            long r = ref[k];
            if (r >= 0) {
                delivery.deliver(file, r, Short.toUnsignedInt(file.get(U16, r + 6)), event[k], false);
            } else {
                long q = ~r;
                delivery.deliver(copySeg, q, Short.toUnsignedInt(copySeg.get(U16, q + 6)), event[k], true);
            }
            k++;
        }
        n -= k;
        System.arraycopy(time, k, time, 0, n);
        System.arraycopy(ref, k, ref, 0, n);
        System.arraycopy(event, k, event, 0, n);
        if (n == 0) {
            copied = 0;
        } else if (copied > 0) {
            compactCopies();
        }
    }

    /** Moves the copied records still waiting to the front of the other buffer. */
    private void compactCopies() {
        if (spare.length < copies.length) {
            spare = new byte[copies.length];
        }
        int at = 0;
        for (int i = 0; i < n; i++) {
            if (ref[i] < 0) {
                int q = (int) ~ref[i];
                int size = Short.toUnsignedInt(copySeg.get(U16, q + 6));
                System.arraycopy(copies, q, spare, at, size);
                ref[i] = ~(long) at;
                at += size;
            }
        }
        byte[] t = copies;
        copies = spare;
        spare = t;
        copySeg = MemorySegment.ofArray(copies);
        copied = at;
    }

    /**
     * A stable sort by time: the queue is a few ascending runs (one per CPU buffer of a round, and
     * what the last flush left), merged pairwise until one is left; equal times keep their order.
     */
    private void sort() {
        if (sorted) {
            return;
        }
        int r = 0;
        runs[r++] = 0;
        for (int i = 1; i < n; i++) {
            if (Long.compareUnsigned(time[i], time[i - 1]) < 0) {
                if (r + 1 >= runs.length) {
                    runs = java.util.Arrays.copyOf(runs, 2 * runs.length);
                }
                runs[r++] = i;
            }
        }
        runs[r] = n;
        if (time2.length < n) {
            time2 = new long[time.length];
            ref2 = new long[time.length];
            event2 = new int[time.length];
        }
        while (r > 1) {
            int out = 0;
            for (int j = 0; j < r; j += 2) {
                int lo = runs[j];
                int mid = runs[j + 1];
                int hi = j + 2 <= r ? runs[Math.min(j + 2, r)] : mid;
                merge(lo, mid, hi);
                runs[out++] = lo;
            }
            runs[out] = n;
            r = out;
            swap();
        }
        sorted = true;
    }

    /** Merges [lo, mid) and [mid, hi) of the current arrays into the scratch ones, left first on ties. */
    private void merge(int lo, int mid, int hi) {
        int a = lo;
        int b = mid;
        int o = lo;
        while (a < mid && b < hi) {
            int from = Long.compareUnsigned(time[b], time[a]) < 0 ? b++ : a++;
            time2[o] = time[from];
            ref2[o] = ref[from];
            event2[o] = event[from];
            o++;
        }
        int rest = a < mid ? a : b;
        int len = hi - o;
        System.arraycopy(time, rest, time2, o, len);
        System.arraycopy(ref, rest, ref2, o, len);
        System.arraycopy(event, rest, event2, o, len);
    }

    private void swap() {
        long[] t = time;
        time = time2;
        time2 = t;
        long[] r = ref;
        ref = ref2;
        ref2 = r;
        int[] e = event;
        event = event2;
        event2 = e;
    }
}
