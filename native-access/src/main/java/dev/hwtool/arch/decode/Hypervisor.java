package dev.hwtool.arch.decode;

/**
 * CPUID.1:ECX[31] (the hypervisor-present bit) and, if set, the vendor signature at leaf
 * 0x40000000 (EBX, ECX, EDX), e.g. "KVMKVMKVM", "Microsoft Hv", "VMwareVMware".
 */
public record Hypervisor(boolean present, String vendor) {
    public static final Hypervisor NONE = new Hypervisor(false, "");
}
