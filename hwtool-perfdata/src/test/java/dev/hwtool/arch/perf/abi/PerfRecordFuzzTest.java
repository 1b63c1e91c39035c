package dev.hwtool.arch.perf.abi;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Arbitrary bytes through the parser under arbitrary formats: the only failure allowed is
 * {@link PerfParseException}, and the parser reads only inside the slice it was given (the slice
 * sits inside a larger array, so an out-of-bounds read would see the guard bytes, and a read past
 * the array would throw IndexOutOfBoundsException).
 */
class PerfRecordFuzzTest {

    @Property(tries = 3000)
    void arbitraryBytesParseOrFailWithAParseError(@ForAll("streams") byte[] data, @ForAll long sampleType,
                                                  @ForAll("readFormats") long readFormat, @ForAll long branchType,
                                                  @ForAll boolean sampleIdAll, @ForAll long regsMask) {
        byte[] framed = new byte[data.length + 64];
        System.arraycopy(data, 0, framed, 32, data.length);
        MemorySegment all = MemorySegment.ofArray(framed);
        PerfRecordFormat f = new PerfRecordFormat(sampleType & (PerfSample.MAX - 1), readFormat, branchType, regsMask,
                regsMask >>> 3, sampleIdAll);
        PerfRecordCursor c = new PerfRecordCursor(f).wrap(all, 32, 32 + data.length);
        try {
            while (c.next()) {
                long off = c.offset();
                if (off < 32 || off + c.size() > 32 + data.length) {
                    throw new AssertionError("record [" + off + ", " + (off + c.size()) + ") outside the slice");
                }
                c.toRecord();
            }
        } catch (PerfParseException expected) {
            // documented failure
        }
    }

    @Provide
    Arbitrary<Long> readFormats() {
        return Arbitraries.longs().between(0, PerfFormat.MAX - 1);
    }

    /** Mostly well-framed streams (plausible types and sizes), so the bodies get exercised, plus raw noise. */
    @Provide
    Arbitrary<byte[]> streams() {
        Arbitrary<byte[]> noise = Arbitraries.bytes().array(byte[].class).ofMaxSize(512);
        Arbitrary<byte[]> framed = Arbitraries.integers().between(1, 6).flatMap(n ->
                Arbitraries.integers().between(1, 23).list().ofSize(n).flatMap(types ->
                        Arbitraries.integers().between(1, 40).list().ofSize(n).flatMap(words ->
                                Arbitraries.longs().array(long[].class).ofSize(words.stream().mapToInt(w -> w).sum())
                                        .map(payload -> frame(types, words, payload)))));
        return Arbitraries.oneOf(noise, framed);
    }

    private static byte[] frame(java.util.List<Integer> types, java.util.List<Integer> words, long[] payload) {
        int total = 0;
        for (int w : words) {
            total += 8 + 8 * w;
        }
        ByteBuffer bb = ByteBuffer.allocate(total).order(ByteOrder.LITTLE_ENDIAN);
        int p = 0;
        for (int i = 0; i < types.size(); i++) {
            int w = words.get(i);
            bb.putInt(types.get(i)).putShort((short) 0).putShort((short) (8 + 8 * w));
            for (int k = 0; k < w; k++) {
                long v = payload[p++];
                // small counts now and then, so nr fields sometimes fit
                bb.putLong((v & 0xF00) == 0 ? (v & 7) : v);
            }
        }
        return bb.array();
    }
}
