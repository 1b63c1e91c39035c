package dev.hwtool.sim;

import dev.hwtool.api.HwException;
import dev.hwtool.arch.msr.MsrCatalog;
import dev.hwtool.arch.msr.MsrDef;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

/**
 * Machines built on one profile in one process ({@code hwtool batch}: one per line) share only
 * immutable, derived data (the profile, its machine blueprint): each starts at the boot values,
 * whatever was done to another.
 */
class MachineIsolationTest {

    /** IA32_DEBUGCTL (a unit's port), IA32_PERF_GLOBAL_CTRL (the counters' port), IA32_PAT and IA32_TSC_AUX (stored), the TSC. */
    private static final int DEBUGCTL = 0x1D9;
    private static final int PERF_GLOBAL_CTRL = 0x38F;
    private static final int PAT = 0x277;
    private static final int TSC_AUX = 0xC000_0103;
    private static final int TSC = 0x10;

    @Test
    void aMachineStartsAtTheBootValuesWhateverWasWrittenOnAnotherOfTheSameProfile() {
        List<String> first = everyRegister(SimulatedPlatform.of("skylake"));

        SimulatedPlatform changed = SimulatedPlatform.of("skylake");
        var msr = changed.msr();
        for (int cpu : msr.cpus()) {
            msr.write(cpu, DEBUGCTL, 1);
            msr.write(cpu, PERF_GLOBAL_CTRL, 0x3);
            msr.write(cpu, PAT, 0x0606_0606_0606_0606L);
            msr.write(cpu, TSC_AUX, 0x77);
            msr.write(cpu, TSC, 1L << 40);
        }
        List<String> after = everyRegister(changed);
        assertNotEquals(first, after, "the writes took effect on their own machine");

        assertEquals(first, everyRegister(SimulatedPlatform.of("skylake")));
        // and building that machine changed nothing on the one written to
        assertEquals(1, msr.read(3, DEBUGCTL));
        assertEquals(0x77, msr.read(3, TSC_AUX));
    }

    @Test
    void aProfileMadeInCodeFromTheSameDumpBootsToTheSameValues() {
        Profile builtIn = Profiles.resolve("skylake");
        Profile copy = new Profile("copy", builtIn.processor(), false, builtIn.dump());
        assertEquals(everyRegister(new SimulatedPlatform(builtIn)), everyRegister(new SimulatedPlatform(copy)));
    }

    @Test
    void onlyTheBuiltInProfileItselfSharesItsBlueprint() {
        Profile builtIn = Profiles.resolve("skylake");
        SimulatedCpuidSource cpuid = new SimulatedCpuidSource(builtIn);
        assertSame(Profiles.blueprint(builtIn, cpuid, cpuid.cpus()), Profiles.blueprint(builtIn, cpuid, cpuid.cpus()));
        // fewer CPUs: a blueprint of its own
        SimulatedCpuidSource two = new SimulatedCpuidSource(builtIn, 2);
        assertEquals(List.of(0, 1), Profiles.blueprint(builtIn, two, two.cpus()).cpus());
        // the same name and dump, but not the instance Profiles handed out: derived afresh
        Profile lookalike = new Profile("skylake", builtIn.processor(), true, builtIn.dump());
        assertNotSame(Profiles.blueprint(builtIn, cpuid, cpuid.cpus()), Profiles.blueprint(lookalike, cpuid, cpuid.cpus()));
    }

    /** Every catalog register of every CPU, read in one fixed order ("fault" where RDMSR raises #GP). */
    private static List<String> everyRegister(SimulatedPlatform p) {
        var msr = (SimulatedMsrAccess) p.msr();
        List<String> out = new ArrayList<>();
        for (int cpu : msr.cpus()) {
            for (MsrDef d : MsrCatalog.forCpu(msr.context(cpu))) {
                String v;
                try {
                    v = Long.toHexString(msr.read(cpu, (int) d.address()));
                } catch (HwException e) {
                    v = "fault: " + e.cause();
                }
                out.add(cpu + " " + d.name() + " " + v);
            }
        }
        return out;
    }
}
