package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidRegs.Reg;

/** Decodes {@link AmdPerf} on AMD CPUs; {@link AmdPerf#NONE} elsewhere (the bits are AMD's). */
public final class AmdPerfDecoder {

    private AmdPerfDecoder() {
    }

    public static AmdPerf decode(GuardedCpuid c, Identity id) {
        if (!IdentityDecoder.AMD.equals(id.vendor())) {
            return AmdPerf.NONE;
        }
        CpuidRegs ext1 = c.read(0x8000_0001, 0);
        boolean ctrCore = ext1.bit(Reg.ECX, 23);
        boolean ibs = ext1.bit(Reg.ECX, 10);
        int ibsFeatures = ibs ? c.read(0x8000_001B, 0).eax() : 0;
        boolean brs = c.read(0x8000_0008, 0).bit(Reg.EBX, 31);
        CpuidRegs l22 = c.read(0x8000_0022, 0);
        boolean v2 = l22.bit(Reg.EAX, 0);
        int counters = v2 ? l22.bits(Reg.EBX, 3, 0) : ctrCore ? 6 : 4;
        return new AmdPerf(true, ctrCore, ibs, ibsFeatures, brs, v2, l22.bit(Reg.EAX, 1), l22.bit(Reg.EAX, 2),
                counters, l22.bits(Reg.EBX, 9, 4));
    }
}
