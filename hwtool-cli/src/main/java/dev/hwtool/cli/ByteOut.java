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
