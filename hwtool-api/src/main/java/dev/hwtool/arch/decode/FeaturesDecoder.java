package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;

/** Decodes {@link Features} from the flags listed there, each read only within range. */
public final class FeaturesDecoder {

    private FeaturesDecoder() {
    }

    public static Features decode(CpuidReader reader) {
        return decode(GuardedCpuid.over(reader));
    }

    static Features decode(GuardedCpuid c) {
        return new Features(
                c.flag(CpuidBit.MSR),
                c.flag(CpuidBit.DS),
                c.flag(CpuidBit.DTES64),
                c.flag(CpuidBit.DS_CPL),
                c.flag(CpuidBit.PDCM),
                c.flag(CpuidBit.ARCH_LBR),
                c.flag(CpuidBit.INTEL_PT),
                c.flag(CpuidBit.BUS_LOCK_DETECT),
                c.flag(CpuidBit.RTM),
                c.flag(CpuidBit.TSC),
                c.flag(CpuidBit.RDTSCP),
                c.flag(CpuidBit.HYPERVISOR));
    }
}
