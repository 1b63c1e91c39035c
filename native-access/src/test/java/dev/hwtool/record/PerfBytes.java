package dev.hwtool.record;

import java.io.ByteArrayOutputStream;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** Builds kernel-format perf records byte by byte, little-endian, as perf_output_* writes them. */
final class PerfBytes {

    private final List<byte[]> records = new ArrayList<>();
    private ByteArrayOutputStream body;
    private int type;
    private int misc;

    PerfBytes begin(int type, int misc) {
        this.type = type;
        this.misc = misc;
        body = new ByteArrayOutputStream();
        return this;
    }

    PerfBytes u64(long v) {
        body.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
        return this;
    }

    PerfBytes u32(int v) {
        body.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
        return this;
    }

    /** A NUL-terminated string padded to 8 bytes, as perf_event_comm/mmap_output do. */
    PerfBytes string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        byte[] padded = new byte[(b.length + 1 + 7) / 8 * 8];
        System.arraycopy(b, 0, padded, 0, b.length);
        body.writeBytes(padded);
        return this;
    }

    PerfBytes end() {
        byte[] b = body.toByteArray();
        records.add(ByteBuffer.allocate(8 + b.length).order(ByteOrder.LITTLE_ENDIAN).putInt(type)
                .putShort((short) misc).putShort((short) (8 + b.length)).put(b).array());
        return this;
    }

    List<byte[]> records() {
        return List.copyOf(records);
    }

    static MemorySegment segment(byte[] record) {
        return MemorySegment.ofArray(record);
    }
}
