package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

/**
 * CPUID.1:ECX[31] (hypervisor present) and the vendor signature of leaf 40000000H in EBX, ECX,
 * EDX (Linux arch/x86/kernel/cpu/hypervisor.c; e.g. "KVMKVMKVM", "Microsoft Hv"). The
 * signature is read only when the bit is set: on bare metal leaf 40000000H is out of range.
 */
public final class HypervisorDecoder {

    private HypervisorDecoder() {
    }

    public static Hypervisor decode(CpuidReader reader) {
        return decode(GuardedCpuid.over(reader));
    }

    static Hypervisor decode(GuardedCpuid cpuid) {
        if (!cpuid.flag(CpuidBit.HYPERVISOR)) {
            return Hypervisor.NONE;
        }
        CpuidRegs sig = cpuid.read(GuardedCpuid.HYPERVISOR_BASE, 0);
        return new Hypervisor(true, RegisterText.of(sig.ebx(), sig.ecx(), sig.edx()));
    }
}
