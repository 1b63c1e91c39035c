package dev.hwtool.record;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * OrderedRecords delivers what perf's ordered_events would (tools/perf/util/ordered-events.c), checked
 * against a model written as perf's code reads: a list kept sorted by time where a record goes
 * after every one of its time (queue_event), FINISHED_ROUND flushing up to next_flush and then
 * setting it to the largest queued time (OE_FLUSH__ROUND), untimed records delivered at once.
 */
class OrderedRecordsTest {

    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** One step of a file: a record (time; 0 = untimed) or a FINISHED_ROUND (time -2). */
    record Step(long time, boolean copied) {
        boolean round() {
            return time == -2;
        }
    }

    /** Records of 16 bytes: a header of size 16, then the record's number. */
    private static MemorySegment records(int n) {
        MemorySegment seg = MemorySegment.ofArray(new byte[16 * Math.max(n, 1)]);
        for (int i = 0; i < n; i++) {
            seg.set(U16, 16L * i + 6, (short) 16);
            seg.set(U64, 16L * i + 8, i);
        }
        return seg;
    }

    /** The record numbers in the order OrderedRecords delivers them. */
    private static List<Long> ours(List<Step> steps) {
        MemorySegment file = records(steps.size());
        List<Long> out = new ArrayList<>();
        OrderedRecords o = new OrderedRecords(file, m -> new HwException(Cause.BAD_INPUT, m),
                (seg, p, size, event, copied) -> {
                    assertEquals(16, size);
                    long number = seg.get(U64, p + 8);
                    assertEquals(number, event, "the event travels with its record");
                    assertEquals(steps.get((int) number).copied(), copied);
                    out.add(number);
                });
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if (s.round()) {
                o.finishedRound();
            } else if (!OrderedRecords.timed(s.time())) {
                out.add((long) i);
            } else if (s.copied()) {
                // a transient copy: the source is overwritten right after, as the zstd buffer is
                MemorySegment transient_ = MemorySegment.ofArray(new byte[16]);
                MemorySegment.copy(file, 16L * i, transient_, 0, 16);
                o.queueCopy(s.time(), transient_, 0, 16, i);
                transient_.fill((byte) 0x7f);
            } else {
                o.queue(s.time(), 16L * i, i);
            }
        }
        o.finish();
        assertEquals(0, o.queued());
        return out;
    }

    /** perf's ordered_events, as a list. */
    private static List<Long> perf(List<Step> steps) {
        List<long[]> list = new ArrayList<>(); // {time, number}, sorted, stable
        List<Long> out = new ArrayList<>();
        long nextFlush = 0;
        for (int i = 0; i < steps.size(); i++) {
            Step s = steps.get(i);
            if (s.round()) {
                if (list.isEmpty()) {
                    continue;
                }
                long max = list.get(list.size() - 1)[0];
                if (nextFlush != 0) {
                    while (!list.isEmpty() && Long.compareUnsigned(list.get(0)[0], nextFlush) <= 0) {
                        out.add(list.remove(0)[1]);
                    }
                }
                nextFlush = max;
            } else if (s.time() == 0 || s.time() == -1) {
                out.add((long) i);
            } else {
                int at = list.size();
                while (at > 0 && Long.compareUnsigned(list.get(at - 1)[0], s.time()) > 0) {
                    at--;
                }
                list.add(at, new long[] {s.time(), i});
            }
        }
        list.forEach(e -> out.add(e[1]));
        return out;
    }

    @Property(tries = 300)
    void deliversAsPerf(@ForAll("files") List<Step> steps) {
        assertEquals(perf(steps), ours(steps));
    }

    @Provide
    Arbitrary<List<Step>> files() {
        // few distinct times, so that ties are common; a few untimed records and many rounds
        Arbitrary<Long> time = Arbitraries.frequencyOf(
                net.jqwik.api.Tuple.of(1, Arbitraries.just(0L)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(-1L)),
                net.jqwik.api.Tuple.of(3, Arbitraries.just(-2L)),
                net.jqwik.api.Tuple.of(12, Arbitraries.longs().between(1, 40)),
                net.jqwik.api.Tuple.of(1, Arbitraries.longs().between(Long.MIN_VALUE, -3)));
        Arbitrary<Step> step = Combinators.combine(time, Arbitraries.integers().between(0, 3))
                .as((t, c) -> new Step(t, c == 0));
        return step.list().ofMaxSize(400);
    }

    /**
     * Two CPUs' buffers drained in turn, each sorted: a record of CPU 1 older than CPU 0's last
     * comes out before it, within the limit the round before the previous one set.
     */
    @Test
    void perCpuBuffersInterleaveByTime() {
        List<Step> steps = List.of(
                new Step(10, false), new Step(30, false), // round 1, CPU 0
                new Step(20, false), new Step(40, false), // round 1, CPU 1
                new Step(-2, false), // flushes nothing: next_flush was 0; now 40
                new Step(50, false), new Step(35, true), // round 2
                new Step(-2, false), // flushes up to 40: 10 20 30 35 40; now 50
                new Step(45, false),
                new Step(-2, false)); // flushes up to 50: 45 50
        assertEquals(List.of(0L, 2L, 1L, 6L, 3L, 8L, 5L), ours(steps));
        assertEquals(perf(steps), ours(steps));
    }

    @Test
    void withoutRoundsAllIsSortedAtTheEnd() {
        List<Step> steps = List.of(new Step(5, false), new Step(3, false), new Step(0, false), new Step(3, true),
                new Step(1, false));
        assertEquals(List.of(2L, 4L, 1L, 3L, 0L), ours(steps));
    }
}
