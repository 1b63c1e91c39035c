package dev.hwtool.arch.perf;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/** Builds perf records byte by byte, little-endian, as the kernel's perf_output_* functions write them. */
final class RecordBytes {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private ByteArrayOutputStream body;
    private int type;
    private int misc;

    RecordBytes begin(int type, int misc) {
        this.type = type;
        this.misc = misc;
        body = new ByteArrayOutputStream();
        return this;
    }

    RecordBytes u64(long v) {
        body.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putLong(v).array());
        return this;
    }

    RecordBytes u32(int v) {
        body.writeBytes(ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putInt(v).array());
        return this;
    }

    RecordBytes bytes(byte[] b) {
        body.writeBytes(b);
        return this;
    }

    /** A NUL-terminated string padded to 8 bytes, as perf_event_comm/mmap_output do. */
    RecordBytes string(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        int len = (b.length + 1 + 7) / 8 * 8;
        byte[] padded = new byte[len];
        System.arraycopy(b, 0, padded, 0, b.length);
        return bytes(padded);
    }

    RecordBytes end() {
        byte[] b = body.toByteArray();
        int size = 8 + b.length;
        out.writeBytes(ByteBuffer.allocate(8).order(ByteOrder.LITTLE_ENDIAN).putInt(type).putShort((short) misc)
                .putShort((short) size).array());
        out.writeBytes(b);
        return this;
    }

    byte[] toBytes() {
        return out.toByteArray();
    }
}
