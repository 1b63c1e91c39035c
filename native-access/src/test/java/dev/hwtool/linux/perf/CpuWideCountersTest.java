package dev.hwtool.linux.perf;

import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.linux.LinuxPlatform;
import dev.hwtool.linux.sys.LinuxProbe;
import dev.hwtool.testing.Preconditions;
import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Whole-CPU counting on this machine: a software event always, cycles where a core PMU is registered. */
class CpuWideCountersTest {

    @Test
    void softwareEventsCountOnEveryCpuAndCyclesOnlyWithACorePmu() {
        LinuxFacts facts = LinuxProbe.probe();
        Preconditions.privileged(facts.credentials().perfmonCapable() || facts.perfEventParanoid().orElse(2) <= 0,
                "CPU-wide counting needs CAP_PERFMON or perf_event_paranoid <= 0 (run as root)");
        try (LinuxPlatform platform = LinuxPlatform.open();
             CpuWideCounters c = CpuWideCounters.open(platform.perf(), new PerfPmus(Path.of("/sys"), platform.perf().errors()),
                     List.of("context-switches", "cycles"), platform.cpuid().cpus())) {
            CpuWideCounters.Event switches = c.events().get(0);
            assertTrue(switches.failure().isEmpty(), () -> switches.failure().get().getMessage());
            assertEquals(platform.cpuid().cpus(), List.copyOf(switches.perCpu().keySet()));
            for (PerfEvent e : switches.perCpu().values()) {
                assertEquals(-1, e.pid(), "every task on the CPU");
                long first = e.value();
                Thread.yield();
                assertTrue(e.value() >= first, "a running count never shrinks");
            }
            CpuWideCounters.Event cycles = c.events().get(1);
            assertEquals(facts.corePmus().isEmpty(), cycles.failure().isPresent(),
                    () -> "cycles: " + cycles.failure().map(Throwable::getMessage).orElse("counted"));
            assertFalse(cycles.failure().isPresent() && !cycles.perCpu().isEmpty(), "a failed event holds no fd");
        }
    }
}
