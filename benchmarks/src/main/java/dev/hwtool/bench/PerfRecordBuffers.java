package dev.hwtool.bench;

import dev.hwtool.arch.perf.abi.PerfBranchEntry;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.abi.PerfRecordCursor;
import dev.hwtool.arch.perf.abi.PerfRecordFormat;
import dev.hwtool.arch.perf.abi.PerfRecordMisc;
import dev.hwtool.arch.perf.abi.PerfRecordType;
import dev.hwtool.arch.perf.abi.PerfSample;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Ring-buffer contents for the parsing benchmarks, laid out as kernel/events/core.c
 * perf_output_sample writes them (include/uapi/linux/perf_event.h, enum perf_event_type), little-endian, seeded so every run parses
 * the same bytes. {@link #main} writes them to files so that the C reference
 * (src/main/c/perf_loop.c) parses exactly the bytes the JMH benchmark parses.
 *
 * <p>Three kinds, each a whole buffer of one record type, of 384-448 KiB, a little under perf
 * record's default unprivileged mapping (512 KiB of data pages):
 * <ul>
 *   <li>{@link Kind#PLAIN}: cpu-clock samples with IP|TID|TIME|CPU|PERIOD (48 bytes each), what
 *       {@code perf record -e cpu-clock} writes;</li>
 *   <li>{@link Kind#BRANCH16}/{@link Kind#BRANCH32}: the same plus BRANCH_STACK with HW_INDEX and
 *       16 or 32 entries (Skylake's and later cores' LBR depths), what {@code perf record -b} writes.</li>
 * </ul>
 */
public final class PerfRecordBuffers {

    static final long PLAIN_SAMPLE_TYPE = PerfSample.IP | PerfSample.TID | PerfSample.TIME | PerfSample.CPU
            | PerfSample.PERIOD;
    static final long BRANCH_SAMPLE_TYPE = PLAIN_SAMPLE_TYPE | PerfSample.BRANCH_STACK;
    /** perf record -b on a 5.7+ kernel: any branch, user space, with the LBR's top-of-stack index. */
    static final long BRANCH_FILTER = PerfBranchSample.ANY | PerfBranchSample.USER | PerfBranchSample.HW_INDEX;

    /** Records per buffer: about 384, 448 and 416 KiB. Constants, for JMH's @OperationsPerInvocation. */
    public static final int PLAIN_RECORDS = 8192;
    public static final int BRANCH16_RECORDS = 1024;
    public static final int BRANCH32_RECORDS = 512;

    /** The record layouts benchmarked; {@code records} is fixed so JMH can count operations. */
    public enum Kind {
        PLAIN(0, PLAIN_RECORDS),
        BRANCH16(16, BRANCH16_RECORDS),
        BRANCH32(32, BRANCH32_RECORDS);

        final int branches;
        final int records;

        Kind(int branches, int records) {
            this.branches = branches;
            this.records = records;
        }

        public PerfRecordFormat format() {
            return branches == 0
                    ? new PerfRecordFormat(PLAIN_SAMPLE_TYPE, 0, 0, 0, 0, false)
                    : new PerfRecordFormat(BRANCH_SAMPLE_TYPE, 0, BRANCH_FILTER, 0, 0, false);
        }

        /** Bytes of one record: header, 5 fixed u64 fields, then nr, hw_idx and the entries. */
        public int recordSize() {
            return PerfRecordCursor.HEADER_SIZE + 5 * 8 + (branches == 0 ? 0 : 16 + branches * PerfBranchEntry.SIZE);
        }

        public int records() {
            return records;
        }

        /** The file name {@link #main} writes and the C reference reads. */
        public String fileName() {
            return "records-" + name().toLowerCase(java.util.Locale.ROOT) + ".bin";
        }
    }

    /** cpu-clock at perf's default 4 kHz: one sample per 250 µs of the task's time. */
    static final long PERIOD_NS = 250_000;

    private PerfRecordBuffers() {
    }

    /** The buffer of {@code kind}: {@link Kind#records()} records, nothing else. */
    public static byte[] build(Kind kind) {
        ByteBuffer b = ByteBuffer.allocate(kind.recordSize() * kind.records()).order(ByteOrder.LITTLE_ENDIAN);
        SplittableRandom r = new SplittableRandom(0x5EED + kind.ordinal());
        long time = 1_000_000_000_000L;
        int pid = 4242;
        for (int i = 0; i < kind.records(); i++) {
            b.putInt(PerfRecordType.SAMPLE).putShort((short) PerfRecordMisc.USER).putShort((short) kind.recordSize());
            b.putLong(0x40_1000L + r.nextInt(1 << 20)); // ip in the executable's text
            b.putInt(pid).putInt(pid + r.nextInt(4)); // pid, tid: a few threads of one process
            time += PERIOD_NS + r.nextInt(2000);
            b.putLong(time);
            b.putInt(r.nextInt(2)).putInt(0); // cpu, res
            b.putLong(PERIOD_NS);
            if (kind.branches > 0) {
                b.putLong(kind.branches); // nr
                b.putLong(r.nextInt(kind.branches)); // hw_idx: the LBR's TOS
                for (int k = 0; k < kind.branches; k++) {
                    b.putLong(0x40_1000L + r.nextInt(1 << 20)).putLong(0x40_1000L + r.nextInt(1 << 20));
                    b.putLong(branchFlags(r));
                }
            }
        }
        if (b.hasRemaining()) {
            throw new IllegalStateException(b.remaining() + " bytes of " + kind + " left unwritten");
        }
        return b.array();
    }

    /** perf_branch_entry flags: mispred (bit 0) or predicted (1), cycles (4-19), type (20-23), priv user (30-32). */
    private static long branchFlags(SplittableRandom r) {
        long mispred = r.nextInt(16) == 0 ? 1 : 2;
        long cycles = 1 + r.nextInt(200);
        long type = 1 + r.nextInt(6); // PERF_BR_COND .. PERF_BR_IND_CALL
        return mispred | cycles << 4 | type << 20 | 1L << 30;
    }

    /** Writes every kind's buffer into {@code args[0]} (a directory) for the C reference. */
    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: PerfRecordBuffers <directory>");
            System.exit(2);
        }
        Path dir = Files.createDirectories(Path.of(args[0]));
        for (Kind k : Kind.values()) {
            Files.write(dir.resolve(k.fileName()), build(k));
        }
    }
}
