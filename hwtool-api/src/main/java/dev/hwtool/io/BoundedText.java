package dev.hwtool.io;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Text files and streams that a user hands to hwtool (CPUID dumps, save files, scenario
 * scripts, trace files, the undo journal), read with bounds, so that {@code /dev/zero}, {@code
 * /dev/urandom}, {@code yes |}, a FIFO that never closes or a huge sparse file end at once with
 * one line, never with an OutOfMemoryError, a spin or a hang. Memory stays bounded whatever the
 * input: at most {@link #MAX_LINE_BYTES} for a streamed line, {@link #MAX_FILE_BYTES} for a
 * file read whole.
 *
 * <p>Text means UTF-8 (a leading byte-order mark is skipped) without control bytes other than
 * TAB, LF, FF and CR; lines end with LF, CRLF or a lone CR. Anything else is refused where it is
 * found, as {@code NAME:N: not text (byte 0x00)} or {@code NAME:N: not UTF-8 text (byte 0xff)}
 * (N the line, as the parsers of these files number it), so a binary file fails on its first bad byte instead of being read to its end.
 *
 * <p>Every failure is an {@link HwException} with {@link Cause#BAD_INPUT} and a one-line
 * message naming the input (quoted with {@link TerminalText}) and the reason in words, errno's
 * included ("no such file", "permission denied", "is a directory").
 */
public final class BoundedText {

    /** Longest line, in bytes without its terminator: far above any line a dump, script or trace needs. */
    public static final int MAX_LINE_BYTES = 4096;
    /**
     * Largest text file read whole: 16 MiB. A {@code cpuid -r} dump of a 1024-CPU machine is about
     * 8 MiB; a save file of 100 000 registers about 9 MiB.
     */
    public static final long MAX_FILE_BYTES = 16L << 20;

    private BoundedText() {
    }

    /** The whole of {@code file}, at most {@link #MAX_FILE_BYTES}, lines joined with LF. */
    public static String read(Path file) {
        String name = file.toString();
        try {
            if (Files.isRegularFile(file) && Files.size(file) > MAX_FILE_BYTES) {
                throw tooLarge(name);
            }
            try (InputStream in = Files.newInputStream(file)) {
                return read(in, name);
            }
        } catch (IOException e) {
            throw unreadable(name, e);
        }
    }

    /** The whole of {@code in} (not closed), at most {@link #MAX_FILE_BYTES}, lines joined with LF. */
    public static String read(InputStream in, String name) {
        Lines lines = new Lines(in, name);
        StringBuilder text = new StringBuilder();
        for (String line = lines.next(); line != null; line = lines.next()) {
            if (lines.bytesRead() > MAX_FILE_BYTES) {
                throw tooLarge(name);
            }
            text.append(line).append('\n');
        }
        return text.toString();
    }

    /** The lines of {@code in}, streamed (not closed), each at most {@link #MAX_LINE_BYTES}. */
    public static Lines lines(InputStream in, String name) {
        return new Lines(in, name);
    }

    /** The one-line BAD_INPUT for an input that cannot be read, with the reason in words. */
    public static HwException unreadable(String name, IOException e) {
        return new HwException(Cause.BAD_INPUT, "cannot read " + TerminalText.quote(name) + ": " + reason(e), null, e);
    }

    /**
     * Why an I/O operation failed, in words: for the JDK's file-system exceptions, whose
     * message is only the file name, the operating system's reason (strerror) without it.
     */
    public static String reason(IOException e) {
        String why;
        if (e instanceof NoSuchFileException) {
            why = "no such file";
        } else if (e instanceof AccessDeniedException) {
            why = "permission denied";
        } else if (e instanceof FileSystemException fse && fse.getReason() != null) {
            why = fse.getReason();
        } else if (e.getMessage() != null) {
            why = e.getMessage();
        } else {
            why = e.getClass().getSimpleName();
        }
        if (why.length() > 1 && Character.isUpperCase(why.charAt(0)) && Character.isLowerCase(why.charAt(1))) {
            why = why.substring(0, 1).toLowerCase(Locale.ROOT) + why.substring(1);
        }
        return TerminalText.quote(why.strip(), 200);
    }

    private static HwException tooLarge(String name) {
        return new HwException(Cause.BAD_INPUT, TerminalText.quote(name) + ": larger than " + (MAX_FILE_BYTES >> 20)
                + " MiB, the limit for a text file hwtool reads whole");
    }

    /**
     * Lines of a stream, checked byte by byte as they are read. {@link #next} fails (BAD_INPUT)
     * on the first byte that is not text and on a line longer than {@link #MAX_LINE_BYTES}, at
     * once, without reading on.
     */
    public static final class Lines {
        private final InputStream in;
        private final String name;
        private final byte[] buf = new byte[64 * 1024];
        private final byte[] line = new byte[MAX_LINE_BYTES];
        private int pos;
        private int len;
        private long lineNo;
        private long bytesRead;
        private boolean skipLf;
        private boolean eof;

        Lines(InputStream in, String name) {
            this.in = in;
            this.name = name;
        }

        /** The next line without its terminator, or null at the end. */
        public String next() {
            if (eof) {
                return null;
            }
            lineNo++;
            int n = 0;
            int need = 0;          // continuation bytes still due in the current UTF-8 sequence
            int min = 0;           // the smallest code point the sequence may encode (no overlong forms)
            int cp = 0;
            while (true) {
                int b = read();
                if (b < 0) {
                    eof = true;
                    if (need > 0) {
                        throw bad("not UTF-8 text (a multi-byte character cut off at the end)");
                    }
                    if (n == 0) {            // nothing after the last terminator
                        lineNo--;
                        return null;
                    }
                    return decode(n);
                }
                if (skipLf) {
                    skipLf = false;
                    if (b == '\n') {
                        continue;
                    }
                }
                if (need > 0) {
                    if ((b & 0xc0) != 0x80) {
                        throw bad("not UTF-8 text (byte " + hex(b) + " inside a multi-byte character)");
                    }
                    cp = (cp << 6) | (b & 0x3f);
                    if (--need == 0 && (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))) {
                        throw bad("not UTF-8 text (U+" + Integer.toHexString(cp).toUpperCase(Locale.ROOT) + " encoded wrongly)");
                    }
                    if (need == 0 && cp >= 0x80 && cp <= 0x9f) {
                        throw bad("not text (control character U+" + String.format("%04X", cp) + ")");
                    }
                } else if (b == '\n' || b == '\r') {
                    skipLf = b == '\r';
                    return decode(n);
                } else if (b < 0x80) {
                    if ((b < 0x20 && b != '\t' && b != '\f') || b == 0x7f) {
                        throw bad("not text (byte " + hex(b) + ")");
                    }
                } else if (b >= 0xc2 && b <= 0xdf) {
                    need = 1;
                    min = 0x80;
                    cp = b & 0x1f;
                } else if (b >= 0xe0 && b <= 0xef) {
                    need = 2;
                    min = 0x800;
                    cp = b & 0x0f;
                } else if (b >= 0xf0 && b <= 0xf4) {
                    need = 3;
                    min = 0x10000;
                    cp = b & 0x07;
                } else {
                    throw bad("not UTF-8 text (byte " + hex(b) + ")");
                }
                if (n == MAX_LINE_BYTES) {
                    throw bad("line longer than " + MAX_LINE_BYTES + " bytes, the limit");
                }
                line[n++] = (byte) b;
            }
        }

        /** The number of the line {@link #next} returned last (1 for the first). */
        public long lineNumber() {
            return lineNo;
        }

        /** Bytes consumed from the stream so far, terminators included. */
        public long bytesRead() {
            return bytesRead;
        }

        private int read() {
            if (pos == len) {
                try {
                    len = in.read(buf, 0, buf.length);
                } catch (IOException e) {
                    throw unreadable(name, e);
                }
                pos = 0;
                if (len <= 0) {
                    len = 0;
                    return -1;
                }
            }
            bytesRead++;
            return buf[pos++] & 0xff;
        }

        private String decode(int n) {
            String s = new String(line, 0, n, StandardCharsets.UTF_8);
            return lineNo == 1 && s.startsWith("\ufeff") ? s.substring(1) : s;   // a byte-order mark
        }

        private HwException bad(String what) {
            return new HwException(Cause.BAD_INPUT, TerminalText.quote(name) + ":" + lineNo + ": " + what);
        }

        private static String hex(int b) {
            return String.format("0x%02x", b);
        }
    }
}
