package dev.hwtool.cli;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** glibc getopt_long behaviour msr-tools users rely on; messages as glibc prints them. */
class GetoptTest {

    private static final List<Getopt.LongOption> COMPAT = List.of(
            new Getopt.LongOption("hexadecimal", false, "x"), new Getopt.LongOption("capital-hexadecimal", false, "X"),
            new Getopt.LongOption("c-language", false, "c"), new Getopt.LongOption("zero-fill", false, "0"),
            new Getopt.LongOption("zero-pad", false, "0"), new Getopt.LongOption("all", false, "a"),
            new Getopt.LongOption("cpu", true, "p"), new Getopt.LongOption("decimal", false, "d"));
    private static final List<Getopt.LongOption> EXTRA = List.of(
            new Getopt.LongOption("decode", false, "decode"), new Getopt.LongOption("json", false, "json"));

    private static Getopt.Result parse(String... args) {
        return new Getopt("rdmsr", "xXc0adp:", COMPAT, EXTRA).parse(List.of(args));
    }

    private static String keys(Getopt.Result r) {
        StringBuilder b = new StringBuilder();
        for (Getopt.Opt o : r.options()) {
            b.append(o.key()).append(o.arg() == null ? "" : "=" + o.arg()).append(' ');
        }
        return b.toString().trim();
    }

    @Test
    void clustersAttachedArgumentsAndPermutation() {
        Getopt.Result r = parse("0x1d9", "-xc0", "-p3", "-ap", "4", "--cpu=5", "--cpu", "-6");
        assertNull(r.error());
        assertEquals("x c 0 p=3 a p=4 p=5 p=-6", keys(r));
        assertEquals(List.of("0x1d9"), r.operands());
    }

    @Test
    void doubleDashEndsOptionsAndDashAloneIsAnOperand() {
        Getopt.Result r = parse("-x", "--", "-1", "-a");
        assertEquals("x", keys(r));
        assertEquals(List.of("-1", "-a"), r.operands());
        assertEquals(List.of("-"), parse("-").operands());
    }

    @Test
    void uniquePrefixesAndSameMeaningPrefixes() {
        assertEquals("x", keys(parse("--hex")));
        assertEquals("0", keys(parse("--zero")));   // zero-fill and zero-pad mean the same: no ambiguity
        assertEquals("d", keys(parse("--dec")));    // msr-tools' --decimal first: --decode does not make it ambiguous
        assertEquals("decode", keys(parse("--deco")));
        assertEquals("json", keys(parse("--js")));
    }

    @Test
    void glibcMessages() {
        assertEquals("rdmsr: option '--c' is ambiguous; possibilities: '--capital-hexadecimal' '--c-language' '--cpu'",
                parse("--c", "1").error());
        assertEquals("rdmsr: invalid option -- 'z'", parse("-xz").error());
        assertEquals("x", keys(parse("-xz")), "options before the error still count");
        assertEquals("rdmsr: option requires an argument -- 'p'", parse("-p").error());
        assertEquals("rdmsr: unrecognized option '--nope=1'", parse("--nope=1").error());
        assertEquals("rdmsr: option '--all' doesn't allow an argument", parse("--al=1").error());
        assertEquals("rdmsr: option '--cpu' requires an argument", parse("--cp").error());
    }
}
