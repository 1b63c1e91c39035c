package dev.hwtool.bench;

import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordParser;
import dev.hwtool.bench.PerfRecordBuffers.Kind;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.concurrent.TimeUnit;

/**
 * Ring-buffer parsing throughput in records per second (issue 5's target: at least 50 M/s for
 * plain samples): {@link PerfRecordCursor} over a whole buffer of {@link PerfRecordBuffers}
 * records in native memory, as a ring's data pages are. Every benchmark consumes what a report
 * reads of a record (ip, tid, time, cpu, period and, for branch stacks, every entry's from, to
 * and flags), the same as the C reference (src/main/c/perf_loop.c) does over the same bytes.
 *
 * <p>{@link #plainBareJvm} is the floor on the JVM: the plain layout decoded at fixed offsets,
 * no sample_type dispatch and no bounds checks beyond the segment's own.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class PerfParseBench {

    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    /** One buffer and a reusable cursor for its format. */
    static final class Buffer {
        final MemorySegment data;
        final PerfRecordCursor cursor;
        final Kind kind;

        Buffer(Arena arena, Kind kind) {
            byte[] bytes = PerfRecordBuffers.build(kind);
            this.data = arena.allocate(bytes.length, 8);
            MemorySegment.copy(bytes, 0, data, ValueLayout.JAVA_BYTE, 0, bytes.length);
            this.cursor = new PerfRecordCursor(kind.format());
            this.kind = kind;
        }
    }

    @State(Scope.Thread)
    public static class Buffers {
        Buffer plain;
        Buffer branch16;
        Buffer branch32;

        @Setup(Level.Trial)
        public void setUp() {
            Arena arena = Arena.ofAuto();
            plain = new Buffer(arena, Kind.PLAIN);
            branch16 = new Buffer(arena, Kind.BRANCH16);
            branch32 = new Buffer(arena, Kind.BRANCH32);
        }

        /**
         * A wrong count would make every figure wrong by the same factor: checked once per fork,
         * untimed, after the measurement. Before it, walking the other kinds' buffers would have
         * taught C2's profile of the shared parsing code formats the benchmark never parses (the
         * branch-stack paths, in the plain benchmark's fork), which a consumer of one ring does
         * not see, and made the inlined loop's size, and so its speed, depend on that history.
         */
        @TearDown(Level.Trial)
        public void checkCounts() {
            for (Buffer b : new Buffer[] {plain, branch16, branch32}) {
                long n = walk(b);
                long counted = PerfRecordParser.forEach(b.kind.format(), b.data, c -> { });
                if (counted != b.kind.records()) {
                    throw new IllegalStateException(b.kind + ": parsed " + counted + " records, built "
                            + b.kind.records() + " (checksum " + n + ")");
                }
            }
        }
    }

    /** What a report reads of a record. */
    static long consume(PerfRecordCursor c) {
        long s = (c.ip() ^ c.time()) + c.tid() + c.cpu() + c.period();
        for (int i = 0, n = c.branchCount(); i < n; i++) {
            s += c.branchFrom(i) ^ c.branchTo(i) ^ c.branchFlags(i);
        }
        return s;
    }

    static long walk(Buffer b) {
        PerfRecordCursor c = b.cursor.wrap(b.data);
        long s = 0;
        while (c.next()) {
            s += consume(c);
        }
        return s;
    }

    @Benchmark
    @OperationsPerInvocation(PerfRecordBuffers.PLAIN_RECORDS)
    public long plainCursor(Buffers b) {
        return walk(b.plain);
    }

    @Benchmark
    @OperationsPerInvocation(PerfRecordBuffers.BRANCH16_RECORDS)
    public long branch16Cursor(Buffers b) {
        return walk(b.branch16);
    }

    @Benchmark
    @OperationsPerInvocation(PerfRecordBuffers.BRANCH32_RECORDS)
    public long branch32Cursor(Buffers b) {
        return walk(b.branch32);
    }

    /** The whole-buffer helper: a new cursor per buffer and a visitor call per record. */
    @Benchmark
    @OperationsPerInvocation(PerfRecordBuffers.PLAIN_RECORDS)
    public long plainForEach(Buffers b) {
        long[] sum = new long[1];
        PerfRecordParser.forEach(b.plain.kind.format(), b.plain.data, c -> sum[0] += consume(c));
        return sum[0];
    }

    /** The bare-JVM floor: the plain layout at fixed offsets. */
    @Benchmark
    @OperationsPerInvocation(PerfRecordBuffers.PLAIN_RECORDS)
    public long plainBareJvm(Buffers b) {
        MemorySegment d = b.plain.data;
        long end = d.byteSize();
        long s = 0;
        for (long p = 0; p < end; ) {
            int size = Short.toUnsignedInt(d.get(U16, p + 6));
            if (d.get(U32, p) == 9 /* PERF_RECORD_SAMPLE */) {
                s += (d.get(U64, p + 8) ^ d.get(U64, p + 24)) + d.get(U32, p + 20) + d.get(U32, p + 32)
                        + d.get(U64, p + 40);
            }
            p += size == 0 ? end : size; // a zero size would loop forever; these buffers have none
        }
        return s;
    }
}
