package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.workload.RecordingCpu.Branch;
import dev.hwtool.sim.workload.RecordingCpu.Event;
import dev.hwtool.sim.workload.RecordingCpu.Instructions;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class LoopWorkloadTest {

    private static LoopWorkload loop(long seed, long iterations, int body) {
        return new LoopWorkload(seed, iterations, body, 0x401000, 3);
    }

    /** Iterations of each level, outer first, as the shape says. */
    private static long[] trips(LoopWorkload w) {
        LoopShape s = w.shape();
        long[] t = new long[s.levels()];
        t[0] = w.iterations();
        for (int k = 1; k < t.length; k++) {
            t[k] = s.innerTripCounts().get(k - 1);
        }
        return t;
    }

    @Property(tries = 200)
    void sameSeedSameSequence(@ForAll long seed, @ForAll @LongRange(min = 1, max = 40) long iterations,
                              @ForAll @IntRange(min = 1, max = 16) int body) {
        assertEquals(RecordingCpu.record(loop(seed, iterations, body)), RecordingCpu.record(loop(seed, iterations, body)));
    }

    @Test
    void differentSeedsDiffer() {
        // seeds whose nest has an if: the outcomes come from the seed's stream
        List<Long> withIfs = LongStream.range(0, 100).filter(s -> !LoopShape.of(s).ifTakenEighths().isEmpty())
                .limit(4).boxed().toList();
        assertEquals(4, withIfs.size());
        for (int i = 0; i < withIfs.size(); i++) {
            for (int j = i + 1; j < withIfs.size(); j++) {
                assertNotEquals(RecordingCpu.record(loop(withIfs.get(i), 100, 8)),
                        RecordingCpu.record(loop(withIfs.get(j), 100, 8)), withIfs.get(i) + " vs " + withIfs.get(j));
            }
        }
    }

    @Test
    void seedsChooseDifferentShapes() {
        assertTrue(LongStream.range(0, 200).mapToObj(LoopShape::of).distinct().count() > 20);
        assertTrue(LongStream.range(0, 200).mapToObj(LoopShape::of).anyMatch(s -> s.levels() == 3));
        assertTrue(LongStream.range(0, 200).mapToObj(LoopShape::of).anyMatch(s -> s.levels() == 1));
    }

    /** The totals in LoopWorkload's javadoc, computed from the shape, against what the sink saw. */
    @Property(tries = 300)
    void instructionAndBranchTotalsAsDocumented(@ForAll long seed, @ForAll @LongRange(min = 1, max = 60) long iterations,
                                                @ForAll @IntRange(min = 1, max = 20) int body) {
        LoopWorkload w = loop(seed, iterations, body);
        long[] t = trips(w);
        long ifs = w.shape().ifTakenEighths().size();
        long retired = ifs * (body + 2);
        long taken = ifs;
        for (int k = t.length - 1; k >= 0; k--) {
            retired = t[k] * (body + retired + 1);
            taken = t[k] * taken + t[k] - 1;
        }
        RecordingCpu cpu = new RecordingCpu();
        w.run(cpu);
        assertEquals(taken, cpu.branches().size());
        assertEquals(retired, cpu.retired());
    }

    /**
     * Level k's back edge jumps to its top, base + 4 * body * k (LoopLayout). Between two back
     * edges of outer levels (and after the last) lies exactly one instance of level k.
     */
    @Property(tries = 300)
    void backEdgesAreIterationsMinusOnePerLoopInstance(@ForAll long seed,
                                                       @ForAll @LongRange(min = 1, max = 60) long iterations,
                                                       @ForAll @IntRange(min = 1, max = 5) int body) {
        LoopWorkload w = loop(seed, iterations, body);
        long[] t = trips(w);
        List<Branch> branches = RecordingCpu.running(w).branches();
        int[] levelOf = new int[branches.size()];
        for (int i = 0; i < branches.size(); i++) {
            Branch b = branches.get(i);
            long offset = b.to() - w.base();
            boolean backward = Long.compareUnsigned(b.to(), b.from()) < 0;
            levelOf[i] = backward ? (int) (offset / (4L * body)) : -1;
            if (backward) {
                assertEquals(BranchType.JCC, b.type());
                assertEquals(0, offset % (4L * body), "a back edge lands on a loop top");
                assertTrue(levelOf[i] < t.length);
            }
        }
        long instances = 1;
        for (int k = 0; k < t.length; k++) {
            long inInstance = 0;
            long seen = 0;
            for (int level : levelOf) {
                if (level == k) {
                    inInstance++;
                } else if (level >= 0 && level < k) {
                    assertEquals(t[k] - 1, inInstance, "level " + k);
                    inInstance = 0;
                    seen++;
                }
            }
            assertEquals(t[k] - 1, inInstance, "the last instance of level " + k);
            assertEquals(instances, seen + 1, "instances of level " + k);
            instances *= t[k];
        }
    }

    @Property(tries = 100)
    void instructionsBetweenBranchesComeInOneCallAtTheWorkloadsCpl(@ForAll long seed,
                                                                   @ForAll @IntRange(min = 0, max = 3) int cpl) {
        List<Event> events = RecordingCpu.record(new LoopWorkload(seed, 20, 5, 0xffffffff81000000L, cpl));
        Event previous = null;
        for (Event e : events) {
            if (e instanceof Instructions i) {
                assertFalse(previous instanceof Instructions, "two instruction calls in a row");
                assertTrue(i.count() > 0);
                assertEquals(cpl, i.cpl());
            } else if (e instanceof Branch b) {
                assertEquals(cpl, b.cpl());
                assertTrue(Long.compareUnsigned(b.from(), 0xffffffff81000000L) >= 0);
                assertTrue(Long.compareUnsigned(b.to(), 0xffffffff81000000L) >= 0);
            } else {
                throw new AssertionError("a loop does not stall: " + e);
            }
            previous = e;
        }
    }

    @Test
    void outerBackEdgeIsMispredictedOnlyTheFirstTime() {
        // a 2-bit counter starting weakly not taken learns "taken" after one miss
        List<Branch> outer = RecordingCpu.running(loop(7, 500, 4)).branches().stream()
                .filter(b -> b.to() == 0x401000L && b.type() == BranchType.JCC).toList();
        assertEquals(499, outer.size());
        assertTrue(outer.getFirst().mispredicted());
        assertEquals(1, outer.stream().filter(Branch::mispredicted).count());
    }

    @Test
    void aLoopOfTwoIterationsMissesEveryBackEdge() {
        // taken, not taken, taken, ...: the counter swings between 1 and 2 and is always wrong
        long seed = LongStream.range(0, 1000).filter(s -> {
            LoopShape sh = LoopShape.of(s);
            return sh.levels() == 2 && sh.innerTripCounts().getFirst() == 2;
        }).findFirst().orElseThrow();
        LoopWorkload w = loop(seed, 50, 4);
        List<Branch> branches = RecordingCpu.running(w).branches();
        long innerTop = 0x401000L + Encoding.PLAIN * 4;
        List<Branch> inner = branches.stream().filter(b -> b.to() == innerTop && b.type() == BranchType.JCC).toList();
        assertEquals(50, inner.size());
        assertTrue(inner.stream().allMatch(Branch::mispredicted));
    }

    @Test
    void jmpsAreNeverMispredicted() {
        for (long seed = 0; seed < 30; seed++) {
            LoopWorkload w = loop(seed, 30, 2);
            assertTrue(RecordingCpu.running(w).branches().stream()
                    .filter(b -> b.type() == BranchType.NEAR_REL_JMP).noneMatch(Branch::mispredicted));
        }
    }

    @Test
    void oneIterationHasNoTakenBackEdge() {
        long seed = LongStream.range(0, 1000).filter(s -> LoopShape.of(s).levels() == 1
                && LoopShape.of(s).ifTakenEighths().isEmpty()).findFirst().orElseThrow();
        List<Event> events = RecordingCpu.record(loop(seed, 1, 8));
        assertEquals(List.of(new Instructions(9, 3)), events, "body + the not-taken exit");
    }

    @Test
    void rangesAreChecked() {
        assertEquals("loop: iterations=0 out of range 1..1000000000000",
                assertThrows(HwException.class, () -> loop(1, 0, 8)).getMessage());
        assertEquals("loop: body=65537 out of range 1..65536",
                assertThrows(HwException.class, () -> loop(1, 5, 65537)).getMessage());
        HwException e = assertThrows(HwException.class, () -> new LoopWorkload(1, 5, 8, 0x401000, 4));
        assertEquals(Cause.BAD_INPUT, e.cause());
        assertEquals("loop: cpl=4 out of range 0..3", e.getMessage());
        HwException top = assertThrows(HwException.class, () -> new LoopWorkload(1, 5, 8, -16, 3));
        assertTrue(top.getMessage().startsWith("loop: base=0xfffffffffffffff0 leaves no room below 2^64"), top.getMessage());
    }

    @Test
    void describeNamesEveryParameter() {
        assertEquals("loop seed=1 iterations=1000 body=8 base=0x401000 cpl=3", LoopWorkload.defaults().describe());
    }
}
