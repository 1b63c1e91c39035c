package dev.hwtool.sim;

import dev.hwtool.api.Cause;
import dev.hwtool.api.CpuidSource;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;
import dev.hwtool.caps.CpuidReading;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * CPUID as the simulated processor answers it: from the profile's recorded leaves, with
 * the instruction's own rule for leaves beyond the maximum. SDM Vol. 2A, CPUID: "If a value
 * entered for CPUID.EAX is higher than the maximum input value for basic or extended function
 * for that processor then the data for the highest basic information leaf is returned"
 * (Intel); AMD processors return zeros instead (APM Vol. 3, CPUID). A leaf within range that
 * the dump did not record reads as zeros.
 */
final class SimulatedCpuidSource implements CpuidReading {

    private final Profile profile;
    private final TreeMap<Integer, CpuidSnapshot> cpus = new TreeMap<>();

    SimulatedCpuidSource(Profile profile) {
        this(profile, Integer.MAX_VALUE);
    }

    /** The profile's {@code count} lowest-numbered CPUs only. */
    SimulatedCpuidSource(Profile profile, int count) {
        this.profile = profile;
        for (CpuidSnapshot s : profile.dump().cpus()) {
            cpus.put(s.cpu(), s);
        }
        while (cpus.size() > count) {
            cpus.pollLastEntry();
        }
    }

    @Override
    public String name() {
        return "sim";
    }

    @Override
    public String description() {
        return "simulated CPU, profile " + profile.name() + " (" + profile.processor() + ")";
    }

    @Override
    public List<Integer> cpus() {
        return List.copyOf(cpus.keySet());
    }

    @Override
    public CpuidRegs regs(int cpu, int leaf, int subleaf) {
        CpuidSnapshot s = cpus.get(cpu);
        if (s == null) {
            throw new HwException(Cause.NO_SUCH_CPU, "simulated CPU " + cpu + " does not exist (profile "
                    + profile.name() + " has CPUs " + cpus.keySet() + ")");
        }
        CpuidRegs leaf0 = s.cpuid(0, 0);
        int maxBasic = leaf0.eax();
        boolean intel = leaf0.ebx() == 0x756E6547; // "Genu"
        if (outOfRange(s, leaf, maxBasic)) {
            return intel ? s.cpuid(maxBasic, 0) : CpuidRegs.ZERO;
        }
        return s.cpuid(leaf, subleaf);
    }

    private static boolean outOfRange(CpuidSnapshot s, int leaf, int maxBasic) {
        if (Integer.compareUnsigned(leaf, 0x40000000) < 0) {
            return Integer.compareUnsigned(leaf, maxBasic) > 0;
        }
        if (Integer.compareUnsigned(leaf, 0x80000000) >= 0 && Integer.compareUnsigned(leaf, 0x8FFFFFFF) <= 0) {
            int maxExt = s.cpuid(0x80000000, 0).eax();
            return Integer.compareUnsigned(leaf, maxExt) > 0;
        }
        // Hypervisor and other vendor ranges: answer what was recorded (zeros otherwise).
        return false;
    }
}
