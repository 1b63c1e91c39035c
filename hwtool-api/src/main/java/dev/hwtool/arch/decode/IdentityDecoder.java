package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidReader;
import dev.hwtool.arch.cpuid.CpuidRegs;

/**
 * Decodes {@link Identity}: vendor (CPUID.0 EBX, EDX, ECX), brand string (80000002H..80000004H)
 * and display family/model/stepping from CPUID.1:EAX.
 *
 * <p>Display family/model (SDM Vol. 2A, CPUID, "Processor Version Information"; AMD APM Vol. 3,
 * CPUID Fn0000_0001_EAX): family = base family, plus extended family when base family is 0FH.
 * Model = base model, plus extended model &lt;&lt; 4 when base family is 06H or 0FH on Intel
 * (and any vendor not known to follow AMD's rule), but only when base family is 0FH on AMD and
 * Hygon.
 */
public final class IdentityDecoder {

    public static final String INTEL = "GenuineIntel";
    public static final String AMD = "AuthenticAMD";
    public static final String HYGON = "HygonGenuine";

    private static final int BRAND_FIRST = 0x8000_0002;
    private static final int BRAND_LAST = 0x8000_0004;

    private IdentityDecoder() {
    }

    public static Identity decode(CpuidReader reader) {
        return decode(reader, GuardedCpuid.over(reader));
    }

    static Identity decode(CpuidReader reader, GuardedCpuid cpuid) {
        CpuidRegs leaf0 = reader.cpuid(0);
        String vendor = RegisterText.of(leaf0.ebx(), leaf0.edx(), leaf0.ecx());
        int signature = cpuid.read(0x1, 0).eax();
        return new Identity(vendor, brand(cpuid), displayFamily(signature), displayModel(vendor, signature),
                CpuidField.STEPPING.in(sig(signature)), signature,
                cpuid.maxBasicLeaf(), cpuid.maxExtendedLeaf());
    }

    /** Display family from a CPUID.1:EAX signature. */
    public static int displayFamily(int signature) {
        CpuidRegs r = sig(signature);
        int base = CpuidField.BASE_FAMILY.in(r);
        return base == 0xF ? base + CpuidField.EXTENDED_FAMILY.in(r) : base;
    }

    /** Display model from a CPUID.1:EAX signature, by the vendor's rule. */
    public static int displayModel(String vendor, int signature) {
        CpuidRegs r = sig(signature);
        int base = CpuidField.BASE_FAMILY.in(r);
        boolean amdRule = AMD.equals(vendor) || HYGON.equals(vendor);
        boolean extended = amdRule ? base == 0xF : base == 0x6 || base == 0xF;
        int model = CpuidField.BASE_MODEL.in(r);
        return extended ? model + (CpuidField.EXTENDED_MODEL.in(r) << 4) : model;
    }

    private static String brand(GuardedCpuid cpuid) {
        if (Integer.compareUnsigned(cpuid.maxExtendedLeaf(), BRAND_LAST) < 0) {
            return "";
        }
        int[] regs = new int[12];
        for (int leaf = BRAND_FIRST, i = 0; leaf <= BRAND_LAST; leaf++) {
            CpuidRegs r = cpuid.read(leaf, 0);
            regs[i++] = r.eax();
            regs[i++] = r.ebx();
            regs[i++] = r.ecx();
            regs[i++] = r.edx();
        }
        // Intel pads brand strings with leading spaces ("       Intel(R) Atom(TM)..."), NUL-terminated.
        return RegisterText.of(regs).strip();
    }

    private static CpuidRegs sig(int signature) {
        return new CpuidRegs(signature, 0, 0, 0);
    }
}
