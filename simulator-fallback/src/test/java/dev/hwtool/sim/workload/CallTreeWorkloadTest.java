package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.workload.RecordingCpu.Branch;
import dev.hwtool.sim.workload.RecordingCpu.Event;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CallTreeWorkloadTest {

    /** What the call/return discipline of one run looked like. */
    private record Stack(long calls, long returns, int maxDepth, long mispredictedReturns) {
    }

    /** Replays the branches on a shadow stack, failing on any return that does not match. */
    private static Stack check(List<Branch> branches) {
        Deque<Long> open = new ArrayDeque<>();
        long calls = 0;
        long returns = 0;
        long missed = 0;
        int max = 0;
        for (Branch b : branches) {
            if (b.type().isCall()) {
                calls++;
                open.push(b.from() + 5);
                max = Math.max(max, open.size());
                assertEquals(0, (b.to() - 0x401000L) % 16, "functions are 16-byte aligned");
            } else if (b.type().isReturn()) {
                returns++;
                assertFalse(open.isEmpty(), "return without a call");
                assertEquals(open.pop(), b.to(), "return to the call site + 5");
                if (b.mispredicted()) {
                    missed++;
                }
            } else {
                assertEquals(BranchType.JCC, b.type());
            }
        }
        assertTrue(open.isEmpty(), "frames left open");
        return new Stack(calls, returns, max, missed);
    }

    private static List<Branch> branches(CallTreeWorkload w) {
        RecordingCpu cpu = new RecordingCpu();
        w.run(cpu);
        return cpu.branches();
    }

    private static CallTreeWorkload tree(long seed, int depth, int fanout, long calls) {
        return new CallTreeWorkload(seed, depth, fanout, calls, 0x401000, 3);
    }

    @Property(tries = 300)
    void returnsMatchCallsExactlyAndDepthIsBounded(@ForAll long seed, @ForAll @IntRange(min = 1, max = 24) int depth,
                                                   @ForAll @IntRange(min = 1, max = 6) int fanout,
                                                   @ForAll @LongRange(min = 1, max = 400) long calls) {
        Stack s = check(branches(tree(seed, depth, fanout, calls)));
        assertEquals(calls, s.calls());
        assertEquals(calls, s.returns());
        assertTrue(s.maxDepth() <= depth, s + " deeper than " + depth);
    }

    @Property(tries = 100)
    void sameSeedSameSequence(@ForAll long seed, @ForAll @IntRange(min = 1, max = 10) int depth,
                              @ForAll @IntRange(min = 1, max = 4) int fanout) {
        assertEquals(RecordingCpu.record(tree(seed, depth, fanout, 200)),
                RecordingCpu.record(tree(seed, depth, fanout, 200)));
    }

    @Test
    void differentSeedsDiffer() {
        List<Event> one = RecordingCpu.record(tree(1, 8, 2, 500));
        for (long seed = 2; seed < 6; seed++) {
            assertNotEquals(one, RecordingCpu.record(tree(seed, 8, 2, 500)), "seed " + seed);
        }
    }

    @Test
    void wideTreesReachTheirDepth() {
        assertEquals(3, check(branches(tree(1, 3, 4, 1000))).maxDepth());
        assertEquals(64, check(branches(tree(1, 64, 3, 5000))).maxDepth());
    }

    @Test
    void bothKindsOfCallOccur() {
        List<Branch> b = branches(tree(1, 8, 4, 2000));
        assertTrue(b.stream().anyMatch(x -> x.type() == BranchType.NEAR_REL_CALL));
        assertTrue(b.stream().anyMatch(x -> x.type() == BranchType.NEAR_IND_CALL));
        assertTrue(b.stream().anyMatch(x -> x.type() == BranchType.JCC), "skipped calls");
        assertTrue(b.stream().filter(x -> x.type() == BranchType.NEAR_REL_CALL).noneMatch(Branch::mispredicted));
    }

    @Property(tries = 100)
    void returnsWithinTheReturnStackBufferArePredicted(@ForAll long seed,
                                                        @ForAll @IntRange(min = 1, max = 16) int depth) {
        assertEquals(0, check(branches(tree(seed, depth, 3, 300))).mispredictedReturns());
    }

    @Test
    void returnsDeeperThanTheReturnStackBufferAreMispredicted() {
        Stack s = check(branches(tree(1, 64, 3, 5000)));
        assertTrue(s.mispredictedReturns() > 0, s.toString());
    }

    @Test
    void instructionsAndBranchesAreAtTheWorkloadsCpl() {
        for (Event e : RecordingCpu.record(new CallTreeWorkload(3, 6, 3, 300, 0xffffffff81000000L, 0))) {
            switch (e) {
                case RecordingCpu.Branch b -> assertEquals(0, b.cpl());
                case RecordingCpu.Instructions i -> assertEquals(0, i.cpl());
                case RecordingCpu.Cycles c -> throw new AssertionError("no stalls: " + c);
            }
        }
    }

    @Test
    void rangesAreChecked() {
        assertEquals("calltree: depth=65 out of range 1..64",
                assertThrows(HwException.class, () -> tree(1, 65, 2, 10)).getMessage());
        assertEquals("calltree: fanout=0 out of range 1..16",
                assertThrows(HwException.class, () -> tree(1, 6, 0, 10)).getMessage());
        assertEquals("calltree: calls=0 out of range 1..1000000000000",
                assertThrows(HwException.class, () -> tree(1, 6, 2, 0)).getMessage());
    }

    @Test
    void describeNamesEveryParameter() {
        assertEquals("calltree seed=1 depth=8 fanout=2 calls=1000 base=0x401000 cpl=3",
                CallTreeWorkload.defaults().describe());
    }
}
