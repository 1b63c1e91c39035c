package dev.hwtool.jmh;

import org.junit.jupiter.api.Test;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

import java.util.Collection;
import java.util.Map;
import java.util.ServiceLoader;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The profiler through JMH's Java API ({@code addProfiler}): a real run (one fork, short
 * iterations) of SpinBench on this machine. {@link JmhCommandLineTest} runs JMH's command line.
 */
class HwtoolProfilerTest {

    @Test
    void discoveredThroughTheServiceLoader() {
        boolean found = ServiceLoader.load(org.openjdk.jmh.profile.Profiler.class).stream()
                .anyMatch(p -> p.type() == HwtoolProfiler.class);
        assertTrue(found, "META-INF/services names the profiler, so -lprof lists it and -prof finds it by its class name");
    }

    @Test
    void aRealJmhRunReportsEventsPerOperation() throws Exception {
        Options opt = new OptionsBuilder()
                .include(SpinBench.class.getName() + ".spin")
                .forks(1)
                .warmupIterations(1).warmupTime(TimeValue.milliseconds(200))
                .measurementIterations(2).measurementTime(TimeValue.milliseconds(400))
                .threads(1)
                .jvmArgsAppend("-Xmx256m")
                .addProfiler(HwtoolProfiler.class, "events=task-clock,page-faults,instructions")
                .build();
        Collection<RunResult> results = new Runner(opt).run();
        assertEquals(1, results.size());
        Map<String, Result> secondary = results.iterator().next().getSecondaryResults();
        assertTrue(secondary.containsKey("hwtool.task-clock"), secondary.keySet().toString());
        double nsPerOp = secondary.get("hwtool.task-clock").getScore();
        assertTrue(nsPerOp > 0 && Double.isFinite(nsPerOp), "task-clock per op: " + nsPerOp);
        assertEquals("ns/op", secondary.get("hwtool.task-clock").getScoreUnit());
        assertEquals("#/op", secondary.get("hwtool.page-faults").getScoreUnit());
        assertFalse(secondary.containsKey("hwtool.unsupported"), "no text row, whose score JMH shows as NaN");
        assertTrue(secondary.containsKey("hwtool.page-faults"), secondary.keySet().toString());
        if (dev.hwtool.testing.Preconditions.corePmu().isPresent()) { // cpu, or cpu_core on hybrid parts
            assertTrue(secondary.get("hwtool.instructions").getScore() > 10_000, "10 000 multiply-adds per op");
        } else {
            assertFalse(secondary.containsKey("hwtool.instructions"), "no row for an event that was not counted");
        }
    }
}
