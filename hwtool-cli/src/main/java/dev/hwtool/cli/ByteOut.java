package dev.hwtool.cli;

import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/**
 * Standard output that also takes bytes: {@code rdmsr -r} writes the register's 8 raw bytes,
 * which no character writer can carry unchanged. Text goes through UTF-8 as everywhere else.
 * Over a {@link StdStream} (Main's), a failed write throws {@link StdStream.Failed} through this
 * writer, which PrintWriter's own error flag would otherwise hide (it catches IOException only).
 */
final class ByteOut extends PrintWriter {

    private final OutputStream bytes;

    ByteOut(OutputStream bytes) {
        super(new OutputStreamWriter(bytes, StandardCharsets.UTF_8), false);
        this.bytes = bytes;
    }

    /** Writes {@code b} after any text already printed, in order. */
    void writeBytes(byte[] b) {
        flush();
        try {
            bytes.write(b);
            bytes.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The failed standard output under {@code out}, or null (not standard output, or no failure). */
    static StdStream failed(PrintWriter out) {
        if (out instanceof ByteOut bo && bo.bytes instanceof StdStream s && s.failure() != null) {
            return s;
        }
        return null;
    }

    /** Bytes to {@code out}: directly when it is a ByteOut, else as ISO-8859-1 characters (one per byte). */
    static void write(PrintWriter out, byte[] b) {
        if (out instanceof ByteOut bo) {
            bo.writeBytes(b);
        } else {
            out.write(new String(b, StandardCharsets.ISO_8859_1));
            out.flush();
        }
    }
}
