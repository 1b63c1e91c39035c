package dev.hwtool.sim.workload;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkloadsTest {

    private static final Path HERE = Path.of("/nonexistent-base");

    @TempDir
    Path tmp;

    private static String error(String spec) {
        HwException e = assertThrows(HwException.class, () -> Workloads.parse(spec, HERE));
        assertEquals(Cause.BAD_INPUT, e.cause());
        return e.getMessage();
    }

    @Test
    void defaultsAndKeysInAnyOrder() {
        assertEquals(LoopWorkload.defaults(), Workloads.parse("loop", HERE));
        assertEquals(CallTreeWorkload.defaults(), Workloads.parse("  calltree\t", HERE));
        assertEquals(new LoopWorkload(7, 0x100, 3, 0xffffffff81000000L, 0),
                Workloads.parse("loop cpl=0 base=0xffffffff81000000 body=3 iterations=0x100 seed=7", HERE));
        assertEquals(new CallTreeWorkload(-1L, 64, 16, 1_000_000_000_000L, 0, 1),
                Workloads.parse("calltree seed=18446744073709551615 depth=64 fanout=16 calls=1000000000000 base=0 cpl=1",
                        HERE));
    }

    @Property(tries = 300)
    void describeParsesBackToTheSameWorkload(@ForAll long seed, @ForAll @LongRange(min = 1, max = 1_000_000) long n,
                                             @ForAll @IntRange(min = 1, max = 64) int depth,
                                             @ForAll @IntRange(min = 0, max = 3) int cpl,
                                             @ForAll @LongRange(min = 0, max = 0x7fff_ffff_ffffL) long base) {
        Workload loop = new LoopWorkload(seed, n, depth, base, cpl);
        Workload tree = new CallTreeWorkload(seed, depth, 1 + depth % 16, n, base, cpl);
        assertEquals(loop, Workloads.parse(loop.describe(), HERE));
        assertEquals(tree, Workloads.parse(tree.describe(), HERE));
    }

    @Test
    void traceFilesResolveAgainstTheBaseDirectory() throws IOException {
        Path f = Files.writeString(tmp.resolve("t.trace"), "1 2\n");
        assertEquals(new TraceWorkload(f), Workloads.parse("trace t.trace", tmp));
        assertEquals(new TraceWorkload(f), Workloads.parse("trace " + f, HERE), "absolute paths stay");
        assertInstanceOf(TraceWorkload.class, Workloads.parse("trace -", HERE));
        assertTrue(((TraceWorkload) Workloads.parse("trace -", tmp)).isStdin());
        Workload w = Workloads.parse("trace t.trace", tmp);
        assertEquals(w, Workloads.parse(w.describe(), HERE));
    }

    @Test
    void eachErrorKindHasItsMessage() {
        assertEquals("empty workload spec, expected loop|calltree|trace", error(" \t "));
        assertEquals("no workload spec, expected loop|calltree|trace", error(null));
        assertEquals("unknown workload (loops), expected loop|calltree|trace", error("loops seed=1"));
        assertEquals("unknown workload (LOOP), expected loop|calltree|trace", error("LOOP"));
        assertEquals("loop: expected key=value (seed)", error("loop seed"));
        assertEquals("loop: unknown key (depth), expected seed|iterations|body|base|cpl", error("loop depth=3"));
        assertEquals("calltree: unknown key (body), expected seed|depth|fanout|calls|base|cpl", error("calltree body=3"));
        assertEquals("loop: repeated key (seed)", error("loop seed=1 body=2 seed=1"));
        assertEquals("loop: bad number for body (eight), expected 1..65536, 0x-hex or decimal, unsigned 64-bit",
                error("loop body=eight"));
        assertEquals("loop: bad number for seed (), expected 0..18446744073709551615, 0x-hex or decimal,"
                + " unsigned 64-bit", error("loop seed="));
        assertEquals("loop: iterations=0 out of range 1..1000000000000", error("loop iterations=0"));
        assertEquals("loop: iterations=1000000000001 out of range 1..1000000000000",
                error("loop iterations=1000000000001"));
        assertEquals("loop: body=4294967304 out of range 1..65536", error("loop body=0x100000008"),
                "checked before narrowing to int");
        assertEquals("loop: cpl=4 out of range 0..3", error("loop cpl=4"));
        assertEquals("calltree: depth=0 out of range 1..64", error("calltree depth=0"));
        assertEquals("calltree: depth=65 out of range 1..64", error("calltree depth=65"));
        assertEquals("calltree: fanout=17 out of range 1..16", error("calltree fanout=17"));
        assertEquals("calltree: calls=0 out of range 1..1000000000000", error("calltree calls=0"));
        assertTrue(error("calltree base=0xffffffffffffff00")
                .startsWith("calltree: base=0xffffffffffffff00 leaves no room below 2^64 for the "));
        assertEquals("trace: expected one FILE (\"-\" for standard input), got 0 words", error("trace"));
        assertEquals("trace: expected one FILE (\"-\" for standard input), got 2 words", error("trace a b"));
        assertEquals("trace: no such file (/nonexistent-base/x.trace)", error("trace x.trace"));
    }

    @Test
    void aDirectoryIsNoTrace() {
        assertEquals("trace: is a directory (" + tmp + ")", assertThrows(HwException.class,
                () -> Workloads.parse("trace .", tmp)).getMessage().replace("/.)", ")"));
    }

    @Test
    void grammarListsEveryKeyWithRangeAndDefault() {
        String g = Workloads.grammar();
        assertTrue(g.startsWith("loop [seed=N] [iterations=N] [body=N] [base=ADDR] [cpl=N]\n"), g);
        assertTrue(g.contains("\ncalltree [seed=N] [depth=N] [fanout=N] [calls=N] [base=ADDR] [cpl=N]\n"), g);
        assertTrue(g.contains("    depth 1..64 (default 8)\n"), g);
        assertTrue(g.contains("    base 0x0..0xffffffffffffffff (default 0x401000)\n"), g);
        assertTrue(g.contains("\ntrace FILE\n"), g);
        assertTrue(g.contains("jcc|call|ind-call|jmp|ind-jmp|ret|far|int (default jcc)"), g);
    }

    private static void parsesOrFailsCleanly(String spec) {
        try {
            Workloads.parse(spec, HERE);
        } catch (HwException e) {
            assertEquals(Cause.BAD_INPUT, e.cause());
            assertFalse(e.getMessage().contains("\n") || e.getMessage().contains("\r"), e.getMessage());
        }
    }

    @Property(tries = 2000)
    void anySpecParsesOrFailsWithBadInput(@ForAll String spec) {
        parsesOrFailsCleanly(spec);
    }

    @Property(tries = 3000)
    void nearValidSpecsParseOrFailWithBadInput(@ForAll("nearValidSpecs") String spec) {
        parsesOrFailsCleanly(spec);
    }

    @Provide
    Arbitrary<String> nearValidSpecs() {
        Arbitrary<String> kind = Arbitraries.of("loop", "calltree", "trace", "Loop", "", "call-tree");
        Arbitrary<String> key = Arbitraries.of("seed", "iterations", "body", "base", "cpl", "depth", "fanout", "calls",
                "", "x");
        Arbitrary<String> value = Arbitraries.oneOf(
                Arbitraries.of("0", "1", "3", "4", "64", "65", "0x", "0xffffffffffffffff", "18446744073709551616", "-1",
                        "+1", "1000000000000", "1000000000001", "0x100000008", "\u0663", "", "=", "1=2"),
                Arbitraries.longs().map(Long::toUnsignedString),
                Arbitraries.longs().map(l -> "0x" + Long.toHexString(l)),
                Arbitraries.strings().ofMaxLength(4));
        Arbitrary<String> word = Arbitraries.oneOf(
                key.flatMap(k -> value.map(v -> k + "=" + v)),
                Arbitraries.of("-", "/", "\u0000", "a b"),
                Arbitraries.strings().ofMaxLength(5));
        return kind.flatMap(k -> word.list().ofMaxSize(7).map(ws -> k + " " + String.join(" ", ws)));
    }

    /** argv words (after --) survive the spec round trip whole: blanks, quotes, backslashes. */
    @Property
    void specSplitsBackIntoTheWordsItWasMadeOf(@ForAll("argv") java.util.List<String> words) {
        org.junit.jupiter.api.Assertions.assertEquals(words, Workloads.words(Workloads.spec(words)));
    }

    @Provide
    Arbitrary<java.util.List<String>> argv() {
        return Arbitraries.strings().withChars("ab '\\\t=x/.").ofMinLength(1).ofMaxLength(8).list().ofMinSize(1).ofMaxSize(4);
    }

    @Test
    void aTraceFileWithABlankInItsNameIsOneWord(@TempDir Path dir) throws IOException {
        Path f = Files.writeString(dir.resolve("my trace.txt"), "0x401000 0x402000\n");
        Workload w = Workloads.parse(Workloads.spec(java.util.List.of("trace", f.toString())), dir);
        org.junit.jupiter.api.Assertions.assertTrue(w instanceof TraceWorkload, w.describe());
        org.junit.jupiter.api.Assertions.assertTrue(w.describe().contains("my trace.txt"), w.describe());
    }
}
