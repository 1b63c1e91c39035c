package dev.hwtool.cli;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;

/**
 * A batch's lines, read one at a time as they arrive (a batch on a pipe runs each line before the
 * next is written), each at most {@link #MAX_LINE} bytes: a stream without newlines
 * ({@code /dev/zero}) ends the batch after that many bytes instead of filling the heap.
 */
final class BatchLines {

    /** The longest line, in bytes, without its newline. */
    static final int MAX_LINE = 64 * 1024;

    /** One line: its text, or why it has none. */
    sealed interface Line permits Text, TooLong, NotText {
    }

    record Text(String text) implements Line {
    }

    /** More than {@link #MAX_LINE} bytes without a newline: the rest of the input is not read. */
    record TooLong() implements Line {
    }

    /**
     * Bytes that are not text: a NUL (no argument can hold one: a C string ends at it), another
     * control byte than TAB, FF or CR, or bytes that are not UTF-8. Binary input is not a list of
     * command lines, so the batch stops at the first such line ({@code /dev/urandom} ends at once).
     *
     * @param what the first such byte, as the other text readers say it (BoundedText)
     */
    record NotText(String what) implements Line {
    }

    private final InputStream in;
    private final byte[] buf = new byte[MAX_LINE];
    private final byte[] chunk = new byte[8192];
    private int chunkPos;
    private int chunkEnd;

    BatchLines(InputStream in) {
        this.in = in;
    }

    /** The next line, or null at the end of the input. */
    Line next() throws IOException {
        int len = 0;
        while (true) {
            if (chunkPos == chunkEnd) {
                int r = in.read(chunk);
                if (r < 0) {
                    return len == 0 ? null : line(len);
                }
                chunkPos = 0;
                chunkEnd = r;
            }
            byte b = chunk[chunkPos++];
            if (b == '\n') {
                return line(len);
            }
            if (len == MAX_LINE) {
                return new TooLong();
            }
            buf[len++] = b;
        }
    }

    private Line line(int len) {
        for (int i = 0; i < len; i++) {
            int b = buf[i] & 0xFF;
            if (b < 0x20 && b != '\t' && b != '\f' && b != '\r' || b == 0x7F) {
                return new NotText(String.format("not text (byte 0x%02x)", b));
            }
        }
        java.nio.charset.CharsetDecoder utf8 = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        try {
            return new Text(utf8.decode(java.nio.ByteBuffer.wrap(buf, 0, len)).toString());
        } catch (java.nio.charset.CharacterCodingException e) {
            return new NotText("not UTF-8 text");
        }
    }
}
