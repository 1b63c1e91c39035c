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

    /**
     * The record's form with the CPUID values in hex, as the SDM and {@code cpuid -r} write them
     * (a record's own would print the extended leaf 0x80000021 as -2147483615): e.g.
     * {@code Identity[vendor=GenuineIntel, brand=..., family=6, model=0x5e, stepping=3,
     * signature=0x000506e3, maxBasicLeaf=0x16, maxExtendedLeaf=0x80000008]}.
     */
    @Override
    public String toString() {
        return String.format("Identity[vendor=%s, brand=%s, family=%d, model=0x%x, stepping=%d, signature=0x%08x,"
                + " maxBasicLeaf=0x%x, maxExtendedLeaf=0x%x]", vendor, brand, family, model, stepping, signature,
                maxBasicLeaf, maxExtendedLeaf);
    }
}
