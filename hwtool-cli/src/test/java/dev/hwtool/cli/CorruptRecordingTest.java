package dev.hwtool.cli;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** A recording damaged near its end: every report fails with one line and prints nothing on stdout. */
class CorruptRecordingTest {

    @TempDir
    Path dir;

    @Test
    void aBadLastRecordPrintsNothingOnStdout() throws IOException {
        StringBuilder trace = new StringBuilder();
        for (int i = 0; i < 2000; i++) {
            trace.append(String.format("0x%x 0x%x call%n", 0x401000 + 16 * i, 0x402000 + 16 * i));
        }
        Path t = Files.writeString(dir.resolve("t.trace"), trace);
        Path data = dir.resolve("r.data");
        Run rec = Run.of("bts", "record", "--backend", "sim", "--profile", "skylake", "-o", data.toString(), "--",
                "trace", t.toString());
        assertEquals(0, rec.exit(), rec.toString());
        Run good = Run.of("bts", "report", "--trace", data.toString());
        assertEquals(0, good.exit(), good.toString());
        assertTrue(good.out().lines().count() > 2000, "the whole trace prints when the file is good");

        // perf.data: data section offset and size at 40 and 48; each record's u16 size at +6.
        byte[] b = Files.readAllBytes(data);
        ByteBuffer buf = ByteBuffer.wrap(b).order(ByteOrder.LITTLE_ENDIAN);
        long off = buf.getLong(40);
        long end = off + buf.getLong(48);
        long last = off;
        for (long p = off; p < end; p += Short.toUnsignedInt(buf.getShort((int) p + 6))) {
            last = p;
        }
        assertTrue(last > off + (end - off) / 2, "the last record is late in the file");
        buf.putShort((int) last + 6, (short) 0x7ff8);
        Path bad = Files.write(dir.resolve("bad.data"), b);
        for (String report : new String[] {"bts report --trace", "bts report --trace --json", "bts report"}) {
            Run r = Run.of((report + " " + bad).split(" "));
            assertEquals(3, r.exit(), report + ": " + r);
            assertEquals("", r.out(), report + ": nothing on stdout");
            assertEquals(1, r.err().lines().count(), report + ": " + r.err());
        }
    }
}
