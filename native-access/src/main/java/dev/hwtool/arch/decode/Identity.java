package dev.hwtool.arch.decode;

/**
 * Who the processor says it is: CPUID.0 vendor, the 0x80000002..4 brand string, and the
 * display family/model/stepping computed from CPUID.1:EAX with the extended-family/model
 * rules (SDM Vol. 2A, CPUID, "Processor Version Information").
 *
 * @param signature CPUID.1:EAX as read
 */
public record Identity(String vendor, String brand, int family, int model, int stepping, int signature,
                       int maxBasicLeaf, int maxExtendedLeaf) {

    public boolean isIntel() {
        return "GenuineIntel".equals(vendor);
    }

    public boolean isAmd() {
        return "AuthenticAMD".equals(vendor) || "HygonGenuine".equals(vendor);
    }
}
