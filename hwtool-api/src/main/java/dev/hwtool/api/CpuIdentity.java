package dev.hwtool.api;

import java.util.Objects;

/**
 * Which CPU a platform judged, as {@code hwtool caps}'s header names it: CPUID leaf 0's vendor,
 * the brand string (leaves 8000_0002H..8000_0004H) and leaf 1's signature (SDM Vol. 2A, CPUID,
 * "Returns Processor Version Information": the displayed family and model add the extended
 * fields), with the microarchitecture hwtool's model tables give it.
 *
 * @param vendor            CPUID.0's vendor string ("GenuineIntel", "AuthenticAMD")
 * @param brand             the brand string, empty when the CPU reports none
 * @param family            the displayed family
 * @param model             the displayed model
 * @param stepping          the stepping ID
 * @param signature         CPUID.1:EAX as read
 * @param microarchitecture from the model tables, "unknown" rather than a guess
 * @param hypervisor        CPUID.1:ECX[31]: a hypervisor says it is there
 */
public record CpuIdentity(String vendor, String brand, int family, int model, int stepping, int signature,
                          String microarchitecture, boolean hypervisor) {

    public CpuIdentity {
        Objects.requireNonNull(vendor, "vendor");
        Objects.requireNonNull(brand, "brand");
        Objects.requireNonNull(microarchitecture, "microarchitecture");
    }

    /** Whether CPUID.0 says GenuineIntel. */
    public boolean intel() {
        return "GenuineIntel".equals(vendor);
    }

    /** Whether CPUID.0 says AuthenticAMD, or Hygon's licensed Zen (HygonGenuine). */
    public boolean amd() {
        return "AuthenticAMD".equals(vendor) || "HygonGenuine".equals(vendor);
    }

    /**
     * As {@code hwtool caps} heads its report: the brand (the vendor when there is none), then
     * family, model and stepping in decimal and hex, the signature and the microarchitecture.
     */
    @Override
    public String toString() {
        return String.format("%s (%s, family %d model %d stepping %d (0x%X / 0x%X / 0x%X, signature 0x%08X), %s%s)",
                brand.isEmpty() ? vendor : brand, vendor, family, model, stepping, family, model, stepping, signature,
                microarchitecture, hypervisor ? ", under a hypervisor" : "");
    }
}
