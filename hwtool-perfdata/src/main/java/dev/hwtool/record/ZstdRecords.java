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
    /** A record is at most 64 KiB (u16 size): the buffer holds the one being read. */
    private static final int BUFFER = 1 << 16;

    /** Where a decompressed record is: valid during the call only. */
    @FunctionalInterface
    interface Sink {
        /**
         * @param roundEnded a FINISHED_ROUND between COMPRESSED records was passed since the last
         *                   record handed over (or, with {@code size} 0 and no record, after the last)
         */
        void record(MemorySegment seg, long p, int size, boolean roundEnded);
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
        try (ZstdInputStream z = new ZstdInputStream(in)) {
            // Record by record, each read asking for exactly its bytes: ZstdInputStream drops
            // what it decoded in a call that then runs out of input, and perf 6.1 never ends its
            // frame (util/zstd.c zstd_compress_stream_to_records: ZSTD_compressStream then
            // ZSTD_flushStream), so the stream ends where input runs out after a whole record.
            while (readFully(z, in, 0, 8, true)) {
                int size = Short.toUnsignedInt(seg.get(U16, 6));
                if (size < 8) {
                    throw bad.apply("in compressed data near byte " + in.recordAt + ": record of header size "
                            + size + ", smaller than the header");
                }
                readFully(z, in, 8, size - 8, false);
                if (Integer.compareUnsigned(seg.get(U32, 0), PerfFileFormat.USER_TYPE_START) < 0) {
                    n++;
                }
                sink.record(seg, 0, size, in.takeRound());
            }
            if (in.takeRound()) {
                sink.record(seg, 0, 0, true);
            }
        } catch (IOException e) {
            throw bad.apply("compressed record near byte " + in.recordAt + ": zstd data does not decompress ("
                    + e.getMessage() + ")");
        }
        at[0] = in.next;
        owner.countCompressed(in.count);
        return n;
    }

    /**
     * Reads {@code len} bytes to {@code buf[off..]}; false when the stream ends before the first of
     * them and {@code atRecordStart} (the end of the compressed data), an error anywhere else.
     */
    private boolean readFully(ZstdInputStream z, Payloads in, int off, int len, boolean atRecordStart) throws IOException {
        int got = 0;
        while (got < len) {
            int r;
            try {
                r = z.read(buf, off + got, len - got);
            } catch (IOException | RuntimeException e) {
                if (e instanceof HwException h) {
                    throw h;
                }
                // an open frame whose input is all read: the end of what perf flushed
                if (in.exhausted && got == 0 && atRecordStart) {
                    return false;
                }
                if (in.exhausted) {
                    throw bad.apply("compressed data ends inside a record");
                }
                throw new IOException(e.getMessage(), e);
            }
            if (r < 0) {
                if (got == 0 && atRecordStart) {
                    return false;
                }
                throw bad.apply("compressed data ends inside a record");
            }
            got += r;
        }
        return true;
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
        /** No COMPRESSED record follows: the stream's input is all read. */
        boolean exhausted;
        /** A FINISHED_ROUND was passed and not yet told. */
        private boolean round;

        /**
         * Whether a FINISHED_ROUND was passed since the last call. The decoder reads ahead and holds
         * back up to a window of output (aircompressor's ZstdIncrementalFrameDecompressor), so this
         * is known only some records after perf, which reads each COMPRESSED record whole, meets it.
         */
        boolean takeRound() {
            boolean r = round;
            round = false;
            return r;
        }

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
                    round = true;
                    p += size;
                    continue;
                } else {
                    next = p;
                    exhausted = true;
                    return false;
                }
                next = p + size;
                count++;
                return true;
            }
            next = p;
            exhausted = true;
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
                if (exhausted || !advance()) {
                    return end(b, off, len);
                }
            }
            int n = (int) Math.min(len, limit - pos);
            MemorySegment.copy(file, ValueLayout.JAVA_BYTE, pos, b, off, n);
            frames.feed(b, off, n);
            pos += n;
            return n;
        }

        private final Frames frames = new Frames();
        private int closing = -1;

        /**
         * After the last payload: a frame perf left open at a block boundary is closed with an
         * empty last raw block (RFC 8878 3.1.1.2: Last_Block 1, Block_Type Raw_Block, Block_Size 0),
         * so that the decoder gives every block it read; then the end.
         */
        private int end(byte[] b, int off, int len) {
            if (closing < 0) {
                closing = frames.openAtBlockBoundary() ? 0 : LAST_EMPTY_BLOCK.length;
            }
            if (closing >= LAST_EMPTY_BLOCK.length) {
                return -1;
            }
            int n = Math.min(len, LAST_EMPTY_BLOCK.length - closing);
            System.arraycopy(LAST_EMPTY_BLOCK, closing, b, off, n);
            closing += n;
            return n;
        }
    }

    /** Block_Header of an empty last raw block: (0 << 3) | (Raw_Block 0 << 1) | Last_Block 1, little-endian u24. */
    private static final byte[] LAST_EMPTY_BLOCK = {1, 0, 0};

    /**
     * Follows the zstd frame structure (RFC 8878 3.1.1) of the bytes read, only to know where the
     * input ends: between frames, at a block boundary of an open frame, or elsewhere (truncated).
     */
    private static final class Frames {
        private static final int MAGIC = 0, FHD = 1, HEADER_REST = 2, BLOCK_HEADER = 3, BLOCK_BODY = 4, CHECKSUM = 5;
        private int state = MAGIC;
        /** Bytes of the current state still to come. */
        private long need = 4;
        private int collected;
        private int word;
        private boolean checksum;
        private boolean last;

        boolean openAtBlockBoundary() {
            return state == BLOCK_HEADER && collected == 0 && !checksum;
        }

        void feed(byte[] b, int off, int n) {
            int i = off;
            int e = off + n;
            while (i < e) {
                if (state == HEADER_REST || state == BLOCK_BODY || state == CHECKSUM) {
                    long k = Math.min(need, e - i);
                    i += (int) k;
                    need -= k;
                    if (need == 0) {
                        afterSkip();
                    }
                    continue;
                }
                word |= (b[i++] & 0xff) << (8 * collected);
                collected++;
                if (collected == need) {
                    int v = word;
                    collected = 0;
                    word = 0;
                    afterField(v);
                }
            }
        }

        private void afterField(int v) {
            switch (state) {
                case MAGIC -> {
                    state = FHD;
                    need = 1;
                }
                case FHD -> {
                    boolean single = (v & 0x20) != 0;
                    checksum = (v & 0x04) != 0;
                    int did = new int[] {0, 1, 2, 4}[v & 3];
                    int fcs = new int[] {single ? 1 : 0, 2, 4, 8}[(v >>> 6) & 3];
                    need = (single ? 0 : 1) + did + fcs;
                    state = HEADER_REST;
                    if (need == 0) {
                        afterSkip();
                    }
                }
                case BLOCK_HEADER -> {
                    last = (v & 1) != 0;
                    int type = (v >>> 1) & 3;
                    need = type == 1 ? 1 : (v >>> 3); // RLE_Block: one byte
                    state = BLOCK_BODY;
                    if (need == 0) {
                        afterSkip();
                    }
                }
                default -> throw new IllegalStateException();
            }
        }

        private void afterSkip() {
            switch (state) {
                case HEADER_REST -> {
                    state = BLOCK_HEADER;
                    need = 3;
                }
                case BLOCK_BODY -> {
                    if (!last) {
                        state = BLOCK_HEADER;
                        need = 3;
                    } else if (checksum) {
                        state = CHECKSUM;
                        need = 4;
                    } else {
                        state = MAGIC;
                        need = 4;
                    }
                }
                case CHECKSUM -> {
                    state = MAGIC;
                    need = 4;
                }
                default -> throw new IllegalStateException();
            }
        }
    }
}
