package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.workload.RecordingCpu.Branch;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class TraceParserTest {

    private static InputStream in(String text) {
        return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
    }

    private static List<Branch> parse(String text) {
        RecordingCpu cpu = new RecordingCpu();
        long n = new TraceParser("t.trace").run(in(text), cpu);
        assertEquals(n, cpu.events.size());
        return cpu.branches();
    }

    private static String error(String text) {
        HwException e = assertThrows(HwException.class, () -> parse(text));
        assertEquals(Cause.BAD_INPUT, e.cause());
        return e.getMessage();
    }

    @Test
    void everyFormOfAGoodLine() {
        assertEquals(List.of(
                        new Branch(0x401000, 0x401020, BranchType.JCC, 3, false),
                        new Branch(4096, 8192, BranchType.NEAR_REL_CALL, 3, false),
                        new Branch(0xffffffff81000000L, 0xffffffff81000010L, BranchType.NEAR_RET, 0, true),
                        new Branch(-1L, 0, BranchType.INTERRUPT, 1, true),
                        new Branch(0x10, 0x20, BranchType.NEAR_IND_CALL, 2, false),
                        new Branch(0x10, 0x20, BranchType.NEAR_IND_JMP, 3, true),
                        new Branch(0xABCDEF, 0x20, BranchType.FAR, 3, false),
                        new Branch(0x10, 0x20, BranchType.NEAR_REL_JMP, 0, false)),
                parse("""
                        0x401000 0x401020
                        4096 8192 call
                        0xffffffff81000000 0xffffffff81000010 mispredict ret cpl=0
                        18446744073709551615 0 cpl=1 int mispredict
                        0x10 0x20 IND-CALL cpl=0x2
                        0x10 0x20 mispredict near_ind_jmp
                        0XabcdEF 0x20 far
                        0x10 0x20 jmp CPL=0"""));
    }

    @Test
    void commentsBlankLinesTabsAndLineEnds() {
        List<Branch> b = parse("# a trace\r\n\r\n  \t \n0x1\t0x2  call\t# the call\r\n0x3 0x4#ret\r0x5 0x6 ret\n#end");
        assertEquals(List.of(
                new Branch(1, 2, BranchType.NEAR_REL_CALL, 3, false),
                new Branch(3, 4, BranchType.JCC, 3, false),
                new Branch(5, 6, BranchType.NEAR_RET, 3, false)), b);
        assertEquals(List.of(), parse(""));
        assertEquals(List.of(), parse("\n\n# only comments\n"));
    }

    @Test
    void eachErrorKindHasItsMessage() {
        assertEquals("t.trace:1: missing TO address, expected FROM TO [TYPE] [cpl=N] [mispredict]", error("0x1"));
        assertEquals("t.trace:1: bad FROM address (0xg1), expected 0x-hex or decimal, unsigned 64-bit",
                error("0xg1 0x2"));
        assertEquals("t.trace:1: bad TO address (+5), expected 0x-hex or decimal, unsigned 64-bit", error("1 +5"));
        assertEquals("t.trace:1: bad TO address (0x10000000000000000), expected 0x-hex or decimal, unsigned 64-bit",
                error("1 0x10000000000000000"));
        assertEquals("t.trace:1: bad FROM address (18446744073709551616), expected 0x-hex or decimal, unsigned 64-bit",
                error("18446744073709551616 1"));
        assertEquals("t.trace:1: bad FROM address (-1), expected 0x-hex or decimal, unsigned 64-bit", error("-1 1"));
        assertEquals("t.trace:1: bad FROM address (0x), expected 0x-hex or decimal, unsigned 64-bit", error("0x 1"));
        assertEquals("t.trace:1: bad FROM address (\u0661), expected 0x-hex or decimal, unsigned 64-bit",
                error("\u0661 1"), "non-ASCII digits are not digits here");
        assertEquals("t.trace:1: bad cpl (cpl=4), expected cpl=0..3", error("1 2 cpl=4"));
        assertEquals("t.trace:1: bad cpl (cpl=), expected cpl=0..3", error("1 2 cpl="));
        assertEquals("t.trace:1: bad cpl (cpl=x), expected cpl=0..3", error("1 2 cpl=x"));
        assertEquals("t.trace:1: repeated cpl (cpl=1)", error("1 2 cpl=0 cpl=1"));
        assertEquals("t.trace:1: repeated branch type (ret)", error("1 2 call ret"));
        assertEquals("t.trace:1: repeated mispredict (MISPREDICT)", error("1 2 mispredict MISPREDICT"));
        assertEquals("t.trace:1: unknown token (branch), expected a type jcc|call|ind-call|jmp|ind-jmp|ret|far|int,"
                + " cpl=N or mispredict", error("1 2 branch"));
        assertEquals("t.trace:1: unknown token (3), expected a type jcc|call|ind-call|jmp|ind-jmp|ret|far|int,"
                + " cpl=N or mispredict", error("1 2 3"));
        assertEquals("t.trace:1: line longer than 4096 bytes, the limit", error("1 2 " + "x".repeat(5000)));
    }

    @Test
    void aBadLineIsNamedWithItsNumberAndWhatTheSinkHadRetired() {
        assertEquals("t.trace:4: unknown token (cal), expected a type jcc|call|ind-call|jmp|ind-jmp|ret|far|int,"
                        + " cpl=N or mispredict; stopped after 2 branches",
                error("1 2\n# two\n3 4\n5 6 cal\n7 8\n"));
        assertEquals("t.trace:3: missing TO address, expected FROM TO [TYPE] [cpl=N] [mispredict]",
                error("\n\n5\n"), "no suffix when nothing was retired");
    }

    @Test
    void checkRetiresNothingAndCountsBranches() {
        assertEquals(2, new TraceParser("t").check(in("1 2\n#\n3 4 ret\n")));
        HwException e = assertThrows(HwException.class, () -> new TraceParser("t").check(in("1 2\nbad")));
        assertEquals("t:2: bad FROM address (bad), expected 0x-hex or decimal, unsigned 64-bit", e.getMessage());
    }

    @Test
    void tokensInMessagesAreEscapedAndCut() {
        String m = error("1 2 \u202e\u2028" + "y".repeat(100));
        assertTrue(m.startsWith("t.trace:1: unknown token (\\u202e\\u2028" + "y".repeat(38) + "...)"), m);
    }

    @Test
    void bytesThatAreNotTextEndTheRunWhereTheyAre() {
        assertEquals("t.trace:2: not text (byte 0x00); stopped after 1 branches", error("1 2\n3 \u0000 4\n"));
        assertEquals("t.trace:1: not text (byte 0x1b)", error("\u001b[31m 1 2\n"));
        HwException e = assertThrows(HwException.class,
                () -> new TraceParser("t").run(new ByteArrayInputStream(new byte[] {'1', ' ', (byte) 0xff}), new RecordingCpu()));
        assertEquals("t:1: not UTF-8 text (byte 0xff)", e.getMessage());
    }

    /** /dev/zero as a trace: one endless line of NULs, refused at its first byte. */
    @Test
    void anEndlessLineOfNulsEndsAtOnce() {
        InputStream zeros = new InputStream() {
            @Override
            public int read() {
                return 0;
            }
        };
        HwException e = assertThrows(HwException.class, () -> new TraceParser("z").run(zeros, new RecordingCpu()));
        assertEquals("z:1: not text (byte 0x00)", e.getMessage());
    }

    @Test
    void anEndlessLineOfTextEndsAtTheLineLimit() {
        InputStream ys = new InputStream() {
            @Override
            public int read() {
                return 'y';
            }
        };
        HwException e = assertThrows(HwException.class, () -> new TraceParser("y").run(ys, new RecordingCpu()));
        assertEquals("y:1: line longer than 4096 bytes, the limit", e.getMessage());
    }

    @Test
    void aLongStreamIsReadNotHeld() {
        // 200 000 lines through a stream that makes them on demand
        InputStream lines = new InputStream() {
            private long line;
            private byte[] pending = new byte[0];
            private int at;

            @Override
            public int read() {
                if (at == pending.length) {
                    if (line == 200_000) {
                        return -1;
                    }
                    pending = ("0x" + Long.toHexString(line) + " 0x" + Long.toHexString(line + 1) + " ret\n")
                            .getBytes(StandardCharsets.US_ASCII);
                    at = 0;
                    line++;
                }
                return pending[at++];
            }
        };
        long[] count = new long[1];
        long n = new TraceParser("gen").run(lines, new Retirement() {
            @Override
            public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
                assertEquals(count[0]++, from);
            }

            @Override
            public void instructions(long c, int cpl) {
                throw new AssertionError();
            }

            @Override
            public void cycles(long c) {
                throw new AssertionError();
            }
        });
        assertEquals(200_000, n);
        assertEquals(200_000, count[0]);
    }

    private static void parsesOrFailsCleanly(String text) {
        try {
            new TraceParser("f").run(in(text), new RecordingCpu());
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause());
            String m = e.getMessage();
            assertFalse(m.contains("\n") || m.contains("\r"), m);
            assertTrue(m.matches("f:[0-9]+: .+"), m);
        }
    }

    @Property(tries = 2000)
    void anyTextParsesOrFailsWithBadInput(@ForAll String text) {
        parsesOrFailsCleanly(text);
    }

    @Property(tries = 3000)
    void nearValidLinesParseOrFailWithBadInput(@ForAll("nearValidTraces") String text) {
        parsesOrFailsCleanly(text);
    }

    @Provide
    Arbitrary<String> nearValidTraces() {
        Arbitrary<String> token = Arbitraries.oneOf(
                Arbitraries.of("0x401000", "0xffffffff81000000", "18446744073709551615", "18446744073709551616",
                        "0x", "0x1g", "-1", "+1", "0", "1e3", "call", "CALL", "ret", "ind-call", "int", "far", "jcc",
                        "near_rel_jmp", "cpl=0", "cpl=3", "cpl=4", "cpl=", "cpl=0x1", "cpl=-1", "mispredict",
                        "mispredicted", "#", "# c", "\u00a0", "\u0000"),
                Arbitraries.longs().map(l -> "0x" + Long.toHexString(l)),
                Arbitraries.longs().map(Long::toUnsignedString),
                Arbitraries.strings().ofMaxLength(6));
        Arbitrary<String> separator = Arbitraries.of(" ", "\t", "  ", " \t");
        Arbitrary<String> line = token.list().ofMaxSize(6)
                .flatMap(ts -> separator.map(sep -> String.join(sep, ts)));
        Arbitrary<String> lineEnd = Arbitraries.of("\n", "\r\n", "\r");
        return line.list().ofMaxSize(5).flatMap(ls -> lineEnd.map(end -> String.join(end, ls)));
    }
}
