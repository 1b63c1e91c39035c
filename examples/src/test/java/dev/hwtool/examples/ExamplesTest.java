package dev.hwtool.examples;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Runs the README's examples and checks what they print, here and on the simulator. */
class ExamplesTest {

    interface Main {
        void run() throws Exception;
    }

    static String out(Main m) throws Exception {
        PrintStream old = System.out;
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        System.setOut(new PrintStream(b, true, StandardCharsets.UTF_8));
        try {
            m.run();
        } finally {
            System.setOut(old);
        }
        return b.toString(StandardCharsets.UTF_8);
    }

    /** A core PMU: cpu, or cpu_core/cpu_atom on hybrid parts. */
    static final boolean PMU = dev.hwtool.testing.Preconditions.corePmu().isPresent();

    @Test
    void canIGetLbrs() throws Exception {
        String s = out(() -> CanIGetLbrs.main(new String[0]));
        // LBR through perf: a core PMU with a branch-stack depth above 0 (cpu or cpu_core caps/branches).
        if (dev.hwtool.testing.Preconditions.Hardware.LBR.present()) {
            assertTrue(s.startsWith("LBR: yes, "), s);
        } else {
            assertTrue(s.startsWith("LBR: no, ") && s.contains("; fix: "), s);
        }
    }

    @Test
    void countMyCode() throws Exception {
        String s = out(() -> CountMyCode.main(new String[0]));
        assertTrue(s.matches("(?s).*task-clock = [1-9][0-9]*.*"), s);
        if (!PMU) {
            assertTrue(s.contains("instructions: not counted (perf_event_open("), s);
            assertTrue(s.contains("no hardware PMU"), s);
        } else {
            assertTrue(s.matches("(?s).*instructions = [1-9][0-9]*.*"), s);
        }
    }

    @Test
    void countOnTheSimulator() throws Exception {
        String s = out(() -> CountOnTheSimulator.main(new String[0]));
        assertEquals("simulator, profile skylake (Intel(R) Core(TM) i7-6700K CPU @ 4.00GHz)"
                .substring(0, "simulator, profile skylake".length()), s.substring(0, "simulator, profile skylake".length()));
        java.util.regex.Matcher m = java.util.regex.Pattern.compile(
                ": ([0-9]+) instructions, ([0-9]+) branches \\(loop seed=1 iterations=100 body=8 .* retired ([0-9]+)\\)\n$").matcher(s);
        assertTrue(m.find(), s);
        assertEquals(m.group(3), m.group(1), "the counters count what the workload retired");
        assertTrue(Long.parseLong(m.group(2)) >= 99, "at least the back edges: " + s);
    }
}
