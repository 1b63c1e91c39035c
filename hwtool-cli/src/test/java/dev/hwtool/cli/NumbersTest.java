package dev.hwtool.cli;

import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** Numbers' hex spellings are String.format's, which they replace. */
class NumbersTest {

    @Test
    void hexIsWhatFormatPrints() {
        long[] edges = {0, 1, 0xf, 0x10, 0x1d9, 0x7fff_ffffL, 0x8000_0000L, 0xffff_ffffL, 0x1_0000_0000L,
                Long.MAX_VALUE, Long.MIN_VALUE, -1, -2, 0x0123_4567_89ab_cdefL};
        Random r = new Random(13);
        for (int i = 0; i < edges.length + 2000; i++) {
            long v = i < edges.length ? edges[i] : r.nextLong() >>> r.nextInt(64);
            assertEquals(String.format("0x%016x", v), Numbers.hex64(v));
            assertEquals(String.format("0x%08x", v), Numbers.hex32(v));
            assertEquals(String.format("0x%08x", (int) v), Numbers.hex32((int) v));
        }
    }
}
