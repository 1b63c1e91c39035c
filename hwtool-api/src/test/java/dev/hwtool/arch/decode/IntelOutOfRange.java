package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;

/**
 * A reader that answers out-of-range leaves the way Intel processors do (SDM Vol. 2A, CPUID:
 * "the data for the highest basic information leaf is returned"), so a decoder that reads
 * without checking the ranges sees plausible garbage instead of zeros.
 */
final class IntelOutOfRange implements CpuidReader {

    private final CpuidSnapshot real;
    private final int maxBasic;
    private final int maxExtended;

    IntelOutOfRange(CpuidSnapshot real) {
        this.real = real;
        this.maxBasic = real.cpuid(0).eax();
        int ext = real.cpuid(0x8000_0000).eax();
        this.maxExtended = (ext & 0xFFFF_0000) == 0x8000_0000 ? ext : 0;
    }

    @Override
    public CpuidRegs cpuid(int leaf, int subleaf) {
        boolean basic = Integer.compareUnsigned(leaf, maxBasic) <= 0;
        boolean extended = maxExtended != 0 && (leaf & 0xFFFF_0000) == 0x8000_0000
                && Integer.compareUnsigned(leaf, maxExtended) <= 0;
        return basic || extended ? real.cpuid(leaf, subleaf) : real.cpuid(maxBasic, 0);
    }
}
