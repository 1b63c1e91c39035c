package dev.hwtool.report;

import org.junit.jupiter.api.Test;

import java.util.Map;
import java.util.Optional;

import static dev.hwtool.report.Fixtures.entry;
import static dev.hwtool.report.Fixtures.lbr;
import static org.junit.jupiter.api.Assertions.assertEquals;

class FoldedStacksTest {

    static final Symbols TABLE = new Fixtures.Table().function("main", 0x1000, 0x100).function("f", 0x2000, 0x100)
            .function("g", 0x3000, 0x100);

    @Test
    void callStackSampleIsTheCallersThenTheIpsFunction() {
        CallStackFolder c = new CallStackFolder(TABLE);
        // in g, called from f (site 0x2020), called from main (site 0x1010); newest first
        c.add(lbr(1, 0x3010, entry(0x2020, 0x3000), entry(0x1010, 0x2000)));
        c.add(lbr(1, 0x3044, entry(0x2020, 0x3000), entry(0x1010, 0x2000)));
        c.add(lbr(1, 0x2050, entry(0x1010, 0x2000)));
        c.add(lbr(1, 0x1004));
        assertEquals("main 1\nmain;f 1\nmain;f;g 2\n", c.stacks().text());
        assertEquals(4, c.samples());
        assertEquals(4, c.stacks().total());
    }

    @Test
    void unsymbolizedFramesAreNamedByTheCallTargetsThatEnteredThem() {
        CallStackFolder c = new CallStackFolder(Symbols.NONE);
        c.add(lbr(1, 0x3010, entry(0x2020, 0x3000), entry(0x1010, 0x2000)));
        c.add(lbr(1, 0x3077, entry(0x2040, 0x3000), entry(0x1010, 0x2000)));
        // two ips in g from two call sites of f: one stack; the outermost caller by its call site
        assertEquals("0x1010;0x2000;0x3000 2\n", c.stacks().text());
    }

    @Test
    void samplesWithoutABranchStackAreSkipped() {
        CallStackFolder c = new CallStackFolder(TABLE);
        c.add(Fixtures.sample(1, 0x1000, 0, Optional.empty()));
        assertEquals(1, c.skipped());
        assertEquals("", c.stacks().text());
    }

    static BranchClassifier classifier(Map<Long, BranchFlow> kinds) {
        return (pid, from) -> Optional.ofNullable(kinds.get(from));
    }

    @Test
    void traceShadowStackCountsEachBranchInTheStackItWasTakenIn() {
        TraceFolder t = new TraceFolder(TABLE, classifier(Map.of(0x1010L, BranchFlow.CALL, 0x2020L, BranchFlow.CALL,
                0x30f0L, BranchFlow.RETURN, 0x2080L, BranchFlow.RETURN, 0x2010L, BranchFlow.OTHER,
                0x1020L, BranchFlow.OTHER)));
        t.branch(1, 1, 0x1010, 0x2000, Prediction.UNKNOWN); // main calls f
        t.branch(1, 1, 0x2010, 0x2018, Prediction.UNKNOWN); // jcc in f
        t.branch(1, 1, 0x2020, 0x3000, Prediction.UNKNOWN); // f calls g
        t.branch(1, 1, 0x30f0, 0x2025, Prediction.UNKNOWN); // g returns
        t.branch(1, 1, 0x2080, 0x1015, Prediction.UNKNOWN); // f returns
        t.branch(1, 1, 0x1020, 0x1000, Prediction.UNKNOWN); // loop in main
        assertEquals("main 2\nmain;f 3\nmain;f;g 1\n", t.stacks().text());
        assertEquals(2, t.calls());
        assertEquals(2, t.returns());
        assertEquals(0, t.unclassified());
    }

    @Test
    void returningPastTheTracesFirstFrameRevealsTheCaller() {
        TraceFolder t = new TraceFolder(TABLE, classifier(Map.of(0x30f0L, BranchFlow.RETURN, 0x2080L, BranchFlow.RETURN)));
        t.branch(1, 1, 0x30f0, 0x2025, Prediction.UNKNOWN);
        t.branch(1, 1, 0x2080, 0x1015, Prediction.UNKNOWN);
        t.branch(1, 1, 0x1020, 0x1000, Prediction.UNKNOWN);
        assertEquals("f 1\ng 1\nmain 1\n", t.stacks().text());
        assertEquals(1, t.unclassified());
    }

    @Test
    void aJumpIntoAnotherFunctionIsATailCall() {
        TraceFolder t = new TraceFolder(TABLE, classifier(Map.of(0x1010L, BranchFlow.CALL, 0x2090L, BranchFlow.OTHER,
                0x3008L, BranchFlow.OTHER)));
        t.branch(1, 1, 0x1010, 0x2000, Prediction.UNKNOWN); // main calls f
        t.branch(1, 1, 0x2090, 0x3000, Prediction.UNKNOWN); // f jumps to g
        t.branch(1, 1, 0x3008, 0x3000, Prediction.UNKNOWN); // loop in g
        assertEquals("main 1\nmain;f 1\nmain;g 1\n", t.stacks().text());
    }

    @Test
    void threadsHaveTheirOwnStacks() {
        TraceFolder t = new TraceFolder(TABLE, classifier(Map.of(0x1010L, BranchFlow.CALL)));
        t.branch(1, 1, 0x1010, 0x2000, Prediction.UNKNOWN);
        t.branch(1, 2, 0x1020, 0x1000, Prediction.UNKNOWN);
        t.branch(1, 1, 0x2010, 0x2018, Prediction.UNKNOWN);
        assertEquals("main 2\nmain;f 1\n", t.stacks().text());
    }

    @Test
    void frameNamesCannotBreakTheFormat() {
        assertEquals("operator:: x", FoldedStacks.frameName("operator;; x"));
    }
}
