package dev.hwtool.arch.perf.abi;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds perf records byte by byte, little-endian, as the kernel's perf_output_* functions write
 * them: one buffer of them all ({@link #toBytes()}), or each record on its own ({@link #records()}).
 */
public final class RecordBytes {

    private final List<byte[]> records = new ArrayList<>();
    private ByteArrayOutputStream body;
    private int type;
    private int misc;

    public RecordBytes begin(int type, int misc) {
        this.type = type;
        this.misc = misc;
        body = new ByteArrayOutputStream();
        return this;
    }

    public RecordBytes u64(long v) {
        body.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
        return this;
    }

    public RecordBytes u32(int v) {
        body.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
        return this;
    }

    public RecordBytes bytes(byte[] b) {
        body.writeBytes(b);
        return this;
    }

    /** A NUL-terminated string padded to 8 bytes, as perf_event_comm/mmap_output do. */
    public RecordBytes string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        int len = (b.length + 1 + 7) / 8 * 8;
        byte[] padded = new byte[len];
        System.arraycopy(b, 0, padded, 0, b.length);
        return bytes(padded);
    }

    public RecordBytes end() {
        byte[] b = body.toByteArray();
        int size = 8 + b.length;
        records.add(ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN).putInt(type).putShort((short) misc)
                .putShort((short) size).put(b).array());
        return this;
    }

    /** Every record so far, each with its header. */
    public List<byte[]> records() {
        return List.copyOf(records);
    }

    /** Every record so far, back to back, as in a ring buffer. */
    public byte[] toBytes() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        records.forEach(out::writeBytes);
        return out.toByteArray();
    }
}
