package dev.hwtool.record;

import dev.hwtool.api.HwException;
import io.airlift.compress.v3.zstd.ZstdInputStream;

import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.function.Function;

/**
 * The records inside PERF_RECORD_COMPRESSED (81) and PERF_RECORD_COMPRESSED2 (83): zstd frames
 * (tools/perf/util/zstd.c zstd_compress_stream_to_records) whose decompressed bytes are one stream
 * of records; a frame may span records and a record may span frames, so the payloads of
 * consecutive COMPRESSED records are read as one stream, as perf's session.c does with its
 * decompression buffer (perf_session__process_compressed_event, decomp_last).
 *
 * <p>The decompressor is aircompressor's pure-Java zstd (io.airlift:aircompressor-v3, Apache-2.0):
 * no native library to extract to a temporary file (zstd-jni, BSD, does that on first use), no
 * JNI, and its decoder runs at several hundred MB/s, well above what a report consumes. Memory is
 * the one reused buffer below, whatever the file's size.
 */
final class ZstdRecords {

    private static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    /** A record is at most 64 KiB (u16 size): the buffer always holds a whole one. */
    private static final int BUFFER = 1 << 20;

    /** Where a decompressed record is: valid during the call only. */
    @FunctionalInterface
    interface Sink {
        void record(MemorySegment seg, long p, int size);
    }

    private final Function<String, HwException> bad;
    private final byte[] buf = new byte[BUFFER];
    private final MemorySegment seg = MemorySegment.ofArray(buf);

    ZstdRecords(Function<String, HwException> bad) {
        this.bad = bad;
    }

    /**
     * Decompresses the COMPRESSED records from {@code at[0]} up to the first record of another kind
     * (FINISHED_ROUND and the like between them are skipped), handing each whole decompressed
     * record to {@code sink}; sets {@code at[0]} past the last one read.
     *
     * @return the number of kernel records (types below 64) handed over
     */
    long read(MemorySegment file, long[] at, long end, PerfDataFile owner, Sink sink) {
        Payloads in = new Payloads(file, at[0], end, owner);
        long n = 0;
        int have = 0;
        try (ZstdInputStream z = new ZstdInputStream(in)) {
            while (true) {
                int r = z.read(buf, have, buf.length - have);
                if (r < 0) {
                    break;
                }
                have += r;
                int p = 0;
                while (have - p >= 8) {
                    int size = Short.toUnsignedInt(seg.get(U16, p + 6));
                    if (size < 8) {
                        throw bad.apply("in compressed data near byte " + in.recordAt + ": record of header size "
                                + size + ", smaller than the header");
                    }
                    if (size > have - p) {
                        break;
                    }
                    if (Integer.compareUnsigned(seg.get(U32, p), PerfFileFormat.USER_TYPE_START) < 0) {
                        n++;
                    }
                    sink.record(seg, p, size);
                    p += size;
                }
                System.arraycopy(buf, p, buf, 0, have - p);
                have -= p;
            }
        } catch (IOException | RuntimeException e) {
            if (e instanceof HwException h) {
                throw h;
            }
            throw bad.apply("compressed record near byte " + in.recordAt + ": zstd data does not decompress ("
                    + e.getMessage() + ")");
        }
        if (have != 0) {
            throw bad.apply("compressed data ends inside a record (" + have + " bytes of it left)");
        }
        at[0] = in.next;
        owner.countCompressed(in.count);
        return n;
    }

    /** The payloads of consecutive COMPRESSED(2) records as one stream. */
    private static final class Payloads extends InputStream {
        private final MemorySegment file;
        private final long end;
        private final PerfDataFile owner;
        private long pos;
        private long limit;
        /** Where the record after the current one starts: where the caller resumes. */
        long next;
        long recordAt;
        long count;

        Payloads(MemorySegment file, long start, long end, PerfDataFile owner) {
            this.file = file;
            this.end = end;
            this.owner = owner;
            this.next = start;
        }

        private boolean advance() {
            long p = next;
            while (p < end) {
                int size = owner.recordSize(p);
                int type = file.get(U32, p);
                if (type == PerfFileFormat.RECORD_COMPRESSED) {
                    recordAt = p;
                    pos = p + 8;
                    limit = p + size;
                } else if (type == PerfFileFormat.RECORD_COMPRESSED2) {
                    recordAt = p;
                    long dataSize = size >= 16 ? file.get(U64, p + 8) : -1;
                    if (dataSize < 0 || dataSize > size - 16) {
                        throw owner.bad("PERF_RECORD_COMPRESSED2 at byte " + p + " announces " + dataSize
                                + " bytes of data in a record of " + size);
                    }
                    pos = p + 16;
                    limit = pos + dataSize;
                } else if (type == PerfFileFormat.RECORD_FINISHED_ROUND) {
                    p += size;
                    continue;
                } else {
                    next = p;
                    return false;
                }
                next = p + size;
                count++;
                return true;
            }
            next = p;
            return false;
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) < 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            while (pos >= limit) {
                if (!advance()) {
                    return -1;
                }
            }
            int n = (int) Math.min(len, limit - pos);
            MemorySegment.copy(file, ValueLayout.JAVA_BYTE, pos, b, off, n);
            pos += n;
            return n;
        }
    }
}
