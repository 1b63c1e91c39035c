package dev.hwtool.sim.cpu;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A machine builds a core's CPUs when one of them is first asked for: which CPU is asked for
 * first, and whether the other cores exist yet, changes nothing any CPU reads.
 */
class LazyCoresTest {

    private static SimulatedMachine skylake() {
        return new SimulatedPlatform(Profiles.resolve("skylake")).machine();
    }

    private static Map<Integer, List<Integer>> siblings(SimulatedMachine m) {
        Map<Integer, List<Integer>> s = new TreeMap<>();
        for (LogicalProcessor c : m.cpus()) {
            s.put(c.number(), c.siblings());
        }
        return s;
    }

    @Test
    void siblingsAreTheSameWhicheverCpuIsAskedForFirst() {
        Map<Integer, List<Integer>> all = siblings(skylake());
        // the Core i7-6700K: 4 cores of 2 logical processors
        assertEquals(8, all.size());
        all.values().forEach(s -> assertEquals(1, s.size(), all.toString()));
        for (int n : all.keySet()) {
            SimulatedMachine m = skylake();
            assertEquals(all.get(n), m.cpu(n).siblings());
            assertEquals(all, siblings(m), "CPU " + n + " first");
        }
    }

    @Test
    void aCpuReadsTheSameWhetherOrNotTheOtherCoresWereBuilt() {
        SimulatedMachine alone = skylake();
        SimulatedMachine whole = skylake();
        whole.cpus();
        assertEquals(everyRegister(whole.cpu(0)), everyRegister(alone.cpu(0)));
        // and the clock both share: every access and every CPU's cycles
        assertEquals(whole.clock().now(), alone.clock().now());
    }

    @Test
    void aCpuTheProfileLacksIsNoSuchCpuNamingTheOnesItHas() {
        HwException e = assertThrows(HwException.class, () -> skylake().cpu(8));
        assertEquals(Cause.NO_SUCH_CPU, e.cause());
        assertTrue(e.getMessage().contains("has CPUs [0, 1, 2, 3, 4, 5, 6, 7]"), e.getMessage());
    }

    private static List<String> everyRegister(LogicalProcessor cpu) {
        List<String> out = new ArrayList<>();
        for (MsrDef d : MsrCatalog.forCpu(cpu.context())) {
            String v;
            try {
                v = Long.toHexString(cpu.rdmsr(d.address()));
            } catch (HwException e) {
                v = "fault: " + e.cause();
            }
            out.add(d.name() + " " + v);
        }
        return out;
    }
}
