package dev.hwtool.io;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BoundedTextTest {

    @TempDir
    Path tmp;

    private static String read(byte[] b) {
        return BoundedText.read(new ByteArrayInputStream(b), "f");
    }

    private static String refused(byte[] b) {
        HwException e = assertThrows(HwException.class, () -> read(b));
        assertEquals(Cause.BAD_INPUT, e.cause());
        return e.getMessage();
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** Bytes without end: the same byte forever, or a repeating text. */
    private static InputStream endless(String unit) {
        byte[] u = unit.getBytes(StandardCharsets.UTF_8);
        return new InputStream() {
            private long i;

            @Override
            public int read() {
                return u[(int) (i++ % u.length)] & 0xff;
            }

            @Override
            public int read(byte[] b, int off, int len) {
                for (int k = 0; k < len; k++) {
                    b[off + k] = u[(int) (i++ % u.length)];
                }
                return len;
            }
        };
    }

    @Test
    void linesEndWithLfCrlfOrCrAndAreJoinedWithLf() {
        assertEquals("a\nb\nc\n\nd\n", read(utf8("a\nb\r\nc\r\rd")));
        assertEquals("", read(new byte[0]));
        assertEquals("\n", read(utf8("\n")));
        assertEquals("x\n", read(utf8("\ufeffx")), "a byte-order mark is skipped");
        assertEquals("tab\there µ 日本\n", read(utf8("tab\there µ 日本\n")));
    }

    @Test
    void bytesThatAreNotTextAreNamedWithTheirLine() {
        assertEquals("f:3: not text (byte 0x00)", refused(utf8("a\nb\n\u0000c\n")));
        assertEquals("f:1: not text (byte 0x1b)", refused(utf8("\u001b[31m")));
        assertEquals("f:1: not text (byte 0x7f)", refused(utf8("\u007f")));
        assertEquals("f:2: not UTF-8 text (byte 0xff)", refused(new byte[] {'a', '\n', (byte) 0xff}));
        assertEquals("f:1: not UTF-8 text (byte 0x41 inside a multi-byte character)", refused(new byte[] {(byte) 0xc3, 'A'}));
        assertEquals("f:1: not UTF-8 text (byte 0xc0)", refused(new byte[] {(byte) 0xc0, (byte) 0x80}), "overlong NUL");
        assertTrue(refused(new byte[] {(byte) 0xed, (byte) 0xa0, (byte) 0x80}).startsWith("f:1: not UTF-8 text (U+D800"),
                "a surrogate");
        assertEquals("f:1: not UTF-8 text (a multi-byte character cut off at the end)", refused(new byte[] {'a', (byte) 0xe6}));
        assertEquals("f:1: not text (control character U+009B)", refused(utf8("\u009b")));
    }

    @Test
    void aLineHasAtMostTheLimit() {
        String ok = "y".repeat(BoundedText.MAX_LINE_BYTES);
        assertEquals(ok + "\n", read(utf8(ok)));
        assertEquals("f:2: line longer than 4096 bytes, the limit", refused(utf8("a\n" + ok + "y")));
    }

    @Test
    void endlessStreamsEndAtTheFirstBadByteOrAtALimit() {
        assertEquals("z:1: not text (byte 0x00)", assertThrows(HwException.class,
                () -> BoundedText.read(endless("\0"), "z")).getMessage(), "/dev/zero");
        assertEquals("y:1: line longer than 4096 bytes, the limit", assertThrows(HwException.class,
                () -> BoundedText.read(endless("y"), "y")).getMessage());
        assertEquals("yes: larger than 16 MiB, the limit for a text file hwtool reads whole", assertThrows(HwException.class,
                () -> BoundedText.read(endless("y\n"), "yes")).getMessage(), "yes |");
        assertEquals("blank: larger than 16 MiB, the limit for a text file hwtool reads whole", assertThrows(HwException.class,
                () -> BoundedText.read(endless("\n"), "blank")).getMessage());
    }

    @Test
    void aHugeSparseFileIsRefusedBeforeItIsRead() throws IOException {
        Path f = tmp.resolve("sparse");
        try (RandomAccessFile raf = new RandomAccessFile(f.toFile(), "rw")) {
            raf.setLength(1L << 30);
        }
        assertEquals(f + ": larger than 16 MiB, the limit for a text file hwtool reads whole",
                assertThrows(HwException.class, () -> BoundedText.read(f)).getMessage());
    }

    @Test
    void unreadableFilesSayWhyInWords() throws IOException {
        assertEquals("cannot read " + tmp.resolve("gone") + ": no such file",
                assertThrows(HwException.class, () -> BoundedText.read(tmp.resolve("gone"))).getMessage());
        assertEquals("cannot read " + tmp + ": is a directory",
                assertThrows(HwException.class, () -> BoundedText.read(tmp)).getMessage());
        Path esc = Files.writeString(tmp.resolve("e\u001b[2Jx"), "\u0007");
        String m = assertThrows(HwException.class, () -> BoundedText.read(esc)).getMessage();
        assertEquals(TerminalText.quote(esc.toString()) + ":1: not text (byte 0x07)", m);
        assertFalse(m.contains("\u001b"), "the name is quoted");
    }

    @Test
    void linesStreamAndCountWithoutHoldingTheStream() {
        BoundedText.Lines lines = BoundedText.lines(new ByteArrayInputStream(utf8("a\r\nb\n")), "f");
        assertEquals("a", lines.next());
        assertEquals(1, lines.lineNumber());
        assertEquals("b", lines.next());
        assertEquals(2, lines.lineNumber());
        assertNull(lines.next());
        assertNull(lines.next());
        assertEquals(2, lines.lineNumber());
    }

    /** Any bytes: read as the JDK decodes the same text, or refused with one line. */
    @Property(tries = 3000)
    void anyBytesReadAsTheJdkDecodesThemOrAreRefusedOnOneLine(@ForAll byte[] b) {
        String text;
        try {
            text = read(b);
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause());
            assertTrue(e.getMessage().matches("f:[0-9]+: not (UTF-8 )?text .*"), e.getMessage());
            assertFalse(TerminalText.needsQuoting(e.getMessage()), e.getMessage());
            return;
        }
        String jdk = new String(b, StandardCharsets.UTF_8);
        assertFalse(jdk.contains("\ufffd") && !text.contains("\ufffd"), "a malformed sequence was let through");
        String expected = jdk.startsWith("\ufeff") ? jdk.substring(1) : jdk;
        expected = expected.replace("\r\n", "\n").replace('\r', '\n');
        assertEquals(expected.isEmpty() || expected.endsWith("\n") ? expected : expected + "\n", text);
    }
}
