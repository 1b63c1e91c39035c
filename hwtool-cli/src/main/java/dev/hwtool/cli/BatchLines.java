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
    sealed interface Line permits Text, TooLong, HasNul {
    }

    record Text(String text) implements Line {
    }

    /** More than {@link #MAX_LINE} bytes without a newline: the rest of the input is not read. */
    record TooLong() implements Line {
    }

    /** A NUL byte, which no argument can hold (a C string ends at it). */
    record HasNul() implements Line {
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
        boolean nul = false;
        while (true) {
            if (chunkPos == chunkEnd) {
                int r = in.read(chunk);
                if (r < 0) {
                    return len == 0 && !nul ? null : line(len, nul);
                }
                chunkPos = 0;
                chunkEnd = r;
            }
            byte b = chunk[chunkPos++];
            if (b == '\n') {
                return line(len, nul);
            }
            if (len == MAX_LINE) {
                return new TooLong();
            }
            nul |= b == 0;
            buf[len++] = b;
        }
    }

    private Line line(int len, boolean nul) {
        return nul ? new HasNul() : new Text(new String(buf, 0, len, StandardCharsets.UTF_8));
    }
}
