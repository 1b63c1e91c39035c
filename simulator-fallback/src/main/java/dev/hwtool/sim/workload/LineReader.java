package dev.hwtool.sim.workload;

import java.io.IOException;
import java.io.Reader;

/**
 * Lines of a stream, ended by LF, CRLF or a lone CR, each at most {@link #MAX} characters:
 * unlike {@code BufferedReader.readLine}, a file without line breaks cannot fill the heap.
 */
final class LineReader {

    static final int MAX = 4096;

    private final Reader in;
    private final char[] buf = new char[8192];
    private final StringBuilder line = new StringBuilder();
    private int pos;
    private int len;
    private boolean skipLf;
    private boolean tooLong;

    LineReader(Reader in) {
        this.in = in;
    }

    /** The next line without its terminator, or null at the end of the stream. */
    String next() throws IOException {
        line.setLength(0);
        tooLong = false;
        boolean any = false;
        while (true) {
            if (pos == len) {
                len = in.read(buf, 0, buf.length);
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    return any ? line.toString() : null;
                }
            }
            char c = buf[pos++];
            if (skipLf) {
                skipLf = false;
                if (c == '\n') {
                    continue;
                }
            }
            if (c == '\n' || c == '\r') {
                skipLf = c == '\r';
                return line.toString();
            }
            any = true;
            if (line.length() < MAX) {
                line.append(c);
            } else {
                tooLong = true;
            }
        }
    }

    /** Whether the line {@link #next} returned was cut at {@link #MAX} characters. */
    boolean tooLong() {
        return tooLong;
    }
}
