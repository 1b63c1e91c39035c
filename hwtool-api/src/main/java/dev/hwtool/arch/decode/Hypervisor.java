package dev.hwtool.arch.decode;

import java.util.Map;

/**
 * CPUID.1:ECX[31] (the hypervisor-present bit) and, if set, the vendor signature at leaf
 * 0x40000000 (EBX, ECX, EDX), e.g. "KVMKVMKVM", "Microsoft Hv", "VMwareVMware".
 */
public record Hypervisor(boolean present, String vendor) {
    public static final Hypervisor NONE = new Hypervisor(false, "");

    /**
     * The 12-byte signatures of the hypervisors Linux detects, and the products' own names, so a
     * report names the hypervisor once ("bhyve", not its signature "bhyve bhyve "). Sources:
     * include/uapi/linux/kvm_para.h KVM_SIGNATURE, arch/x86/include/asm/hyperv-tlfs.h
     * HYPERV_CPUID_SIGNATURE_EAX ("Microsoft Hv"), arch/x86/kernel/cpu/vmware.c
     * CPUID_VMWARE_INFO_LEAF ("VMwareVMware"), arch/x86/include/asm/xen/cpuid.h
     * XEN_CPUID_SIGNATURE ("XenVMMXenVMM"), arch/x86/kernel/cpu/acrn.c ("ACRNACRNACRN"),
     * arch/x86/include/asm/jailhouse_para.h ("Jailhouse\0\0\0"), FreeBSD sys/amd64/vmm/x86.c
     * ("bhyve bhyve "), QEMU target/i386/kvm/kvm.c and tcg ("TCGTCGTCGTCG"), VirtualBox's
     * GIMKvm/GIMHv ("VBoxVBoxVBox"), Parallels (" lrpepyh  vr"), QNX ("QNXQVMBSQG").
     */
    private static final Map<String, String> NAMES = Map.ofEntries(
            Map.entry("KVMKVMKVM", "KVM"),
            Map.entry("Microsoft Hv", "Hyper-V"),
            Map.entry("VMwareVMware", "VMware"),
            Map.entry("XenVMMXenVMM", "Xen"),
            Map.entry("bhyve bhyve", "bhyve"),
            Map.entry("TCGTCGTCGTCG", "QEMU (TCG)"),
            Map.entry("ACRNACRNACRN", "ACRN"),
            Map.entry("Jailhouse", "Jailhouse"),
            Map.entry("VBoxVBoxVBox", "VirtualBox"),
            Map.entry("lrpepyh  vr", "Parallels"),
            Map.entry("QNXQVMBSQG", "QNX hypervisor"));

    /**
     * The hypervisor's name: the product for a known signature, else the signature itself
     * (NULs and surrounding blanks dropped); "" without a hypervisor or signature.
     */
    public String name() {
        String sig = vendor.replace("\0", "").strip();
        return NAMES.getOrDefault(sig, sig);
    }

    /** "hypervisor KVM", or "a hypervisor" when it gives no signature: for a sentence. */
    public String inSentence() {
        return name().isEmpty() ? "a hypervisor" : "hypervisor " + name();
    }
}
