package dev.hwtool.cli;

import dev.hwtool.cli.MsrToolsFormat.Base;
import dev.hwtool.cli.MsrToolsFormat.Style;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * rdmsr.c's printf patterns and widths, case by case (expected strings worked out from the
 * source's switch on mode), and properties over all values and bit fields.
 */
class MsrToolsFormatTest {

    private static String f(long v, Style s) {
        return new String(MsrToolsFormat.format(v, s, null), StandardCharsets.ISO_8859_1);
    }

    private static final Style D = Style.DEFAULT;

    @Test
    void hexadecimalPatterns() {
        assertEquals("4801\n", f(0x4801, D));                                  // "%*llx", width 1
        assertEquals("ABC\n", f(0xabc, D.withBase(Base.CAPITAL_HEX)));         // "%*llX"
        assertEquals("0x4801\n", f(0x4801, D.withC()));                        // "0x%*llx"
        assertEquals("0xAB\n", f(0xab, D.withBase(Base.CAPITAL_HEX).withC())); // "0x%*llX"
        assertEquals("0000000000004801\n", f(0x4801, D.withFill()));           // "%0*llx", (64+3)/4
        assertEquals("01\n", f(0x4801, D.withFill().withBits(7, 0)));          // (8+3)/4 = 2
        assertEquals("001\n", f(0x4801, D.withFill().withBits(8, 0)));         // (9+3)/4 = 3
        assertEquals("0x0000000000004801\n", f(0x4801, D.withFill().withC())); // "0x%0*llx"
        assertEquals("0x0\n", f(0, D.withC()));
        assertEquals("ffffffffffffffff\n", f(-1L, D));
    }

    @Test
    void octalPatterns() {
        assertEquals("10\n", f(8, D.withBase(Base.OCTAL)));
        assertEquals("010\n", f(8, D.withBase(Base.OCTAL).withC()));           // "0%*llo"
        assertEquals("00\n", f(0, D.withBase(Base.OCTAL).withC()));
        assertEquals("0000000000000000044001\n", f(0x4801, D.withBase(Base.OCTAL).withFill())); // (64+2)/3 = 22
        assertEquals("0001\n", f(1, D.withBase(Base.OCTAL).withFill().withBits(11, 0)));        // (12+2)/3 = 4
        assertEquals("00001\n", f(1, D.withBase(Base.OCTAL).withFill().withC().withBits(11, 0))); // "0%0*llo"
    }

    @Test
    void unsignedDecimalPatterns() {
        Style u = D.withBase(Base.UNSIGNED_DECIMAL);
        assertEquals("18446744073709551615\n", f(-1L, u));
        assertEquals("18446744073709551615U\n", f(-1L, u.withC()));            // "%*lluU"
        assertEquals("00000000000000000005\n", f(5, u.withFill()));            // decdigits[64] = 20
        assertEquals("5U\n", f(5, u.withFill().withC()));                      // mo_uns|mo_fill|mo_c: width 1
        assertEquals("005\n", f(5, u.withFill().withBits(7, 0)));              // decdigits[8] = 3
    }

    @Test
    void signedDecimalIsTwosComplementOfTheSelectedBits() {
        Style d = D.withBase(Base.SIGNED_DECIMAL);
        // msr-tools prints -9223372036854775807 and -7 here (its sign bug); hwtool prints -1.
        assertEquals("-1\n", f(-1L, d));
        assertEquals("-1\n", f(0xF, d.withBits(3, 0)));
        assertEquals("7\n", f(0x7, d.withBits(3, 0)));
        assertEquals("-8\n", f(0x8, d.withBits(3, 0)));
        assertEquals("-9223372036854775808\n", f(Long.MIN_VALUE, d));
        assertEquals("00000000000000000005\n", f(5, d.withFill()));            // decdigits[63]+1 = 20
        assertEquals("-0000000000000000001\n", f(-1L, d.withFill()));          // sign, then zeros
        assertEquals("-128\n", f(0x80, d.withFill().withBits(7, 0)));          // decdigits[7]+1 = 4
        assertEquals("0127\n", f(0x7f, d.withFill().withBits(7, 0)));
        assertEquals("5\n", f(5, d.withFill().withC()));                       // mo_dec|mo_fill|mo_c: "%*lld", width 1
        assertEquals("-2\n", f(0xE, d.withC().withBits(3, 0)));                // -c adds nothing to decimal
    }

    @Test
    void rawBytesAreLittleEndianAndCarryNoPrefixOrNewline() {
        Style r = D.withBase(Base.RAW);
        byte[] expected = {8, 7, 6, 5, 4, 3, 2, 1};
        assertArrayEquals(expected, MsrToolsFormat.format(0x0102030405060708L, r, null));
        assertArrayEquals(expected, MsrToolsFormat.format(0x0102030405060708L, r.withFill(), 7));
        assertEquals("{0x08,0x07,0x06,0x05,0x04,0x03,0x02,0x01}\n", f(0x0102030405060708L, r.withC()));
        assertEquals("{0x0f,0x00,0x00,0x00,0x00,0x00,0x00,0x00}\n", f(0xFF, r.withC().withBits(3, 0)));
    }

    @Test
    void cpuPrefixOnTextOnly() {
        assertEquals("CPU 3: 10\n", new String(MsrToolsFormat.format(0x10, D, 3), StandardCharsets.US_ASCII));
        assertEquals("CPU 12: 0x0010\n", new String(MsrToolsFormat.format(0x10, D.withC().withFill().withBits(15, 0), 12),
                StandardCharsets.US_ASCII));
    }

    @Test
    void badBitFieldsAreRejectedByTheStyle() {
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> D.withBits(64, 0));
        org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> D.withBits(3, 4));
    }

    /** {hi, lo} with 0 <= lo <= hi <= 63: every try is a valid -f h:l (msr-tools' own bound). */
    @Provide
    Arbitrary<int[]> bitFields() {
        return Arbitraries.integers().between(0, 63)
                .flatMap(hi -> Arbitraries.integers().between(0, hi).map(lo -> new int[]{hi, lo}));
    }

    @Property
    void hexIsTheFieldInLowerCase(@ForAll long v, @ForAll("bitFields") int[] hiLo) {
        int hi = hiLo[0];
        int lo = hiLo[1];
        long field = BigInteger.valueOf(v).shiftRight(lo).and(BigInteger.ONE.shiftLeft(hi - lo + 1).subtract(BigInteger.ONE)).longValue();
        assertEquals(Long.toHexString(field) + "\n", f(v, D.withBits(hi, lo)));
        String padded = f(v, D.withFill().withBits(hi, lo));
        assertEquals((hi - lo + 1 + 3) / 4 + 1, padded.length(), padded);
        assertEquals(field, Long.parseUnsignedLong(padded.trim(), 16));
    }

    @Property
    void signedDecimalReadsBackAsTheFieldsBits(@ForAll long v, @ForAll("bitFields") int[] hiLo) {
        int hi = hiLo[0];
        int lo = hiLo[1];
        int bits = hi - lo + 1;
        long printed = Long.parseLong(f(v, D.withBase(Base.SIGNED_DECIMAL).withBits(hi, lo)).trim());
        long mask = bits == 64 ? -1L : (1L << bits) - 1;
        assertEquals(MsrToolsFormat.field(v, hi, lo), printed & mask, "same bits");
        assertEquals(printed < 0, ((v >>> hi) & 1) == 1, "sign is the field's top bit");
        String filled = f(v, D.withBase(Base.SIGNED_DECIMAL).withFill().withBits(hi, lo)).trim();
        assertEquals(printed, Long.parseLong(filled));
        assertEquals(true, filled.length() >= MsrToolsFormat.decimalDigits(bits - 1) + 1, filled);
    }

    @Property
    void unsignedDecimalFillIsTheLargestValuesWidth(@ForAll long v, @ForAll @IntRange(min = 1, max = 64) int bits) {
        String s = f(v, D.withBase(Base.UNSIGNED_DECIMAL).withFill().withBits(bits - 1, 0)).trim();
        String max = BigInteger.ONE.shiftLeft(bits).subtract(BigInteger.ONE).toString();
        assertEquals(max.length(), s.length(), "decdigits[" + bits + "]");
        assertEquals(MsrToolsFormat.field(v, bits - 1, 0), Long.parseUnsignedLong(s));
    }
}
