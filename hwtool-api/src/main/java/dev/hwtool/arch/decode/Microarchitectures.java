package dev.hwtool.arch.decode;

import java.util.List;

/**
 * Vendor + display family + display model (range) → microarchitecture name, as a table.
 * Anything not in the table is {@link Microarchitecture#UNKNOWN}: no guessing by proximity.
 *
 * <p>Sources: Intel — Linux arch/x86/include/asm/intel-family.h (model numbers, and the core
 * names in its comments); AMD — Linux arch/x86/kernel/cpu/amd.c bsp_init_amd() for the Zen
 * generations by model range, AMD BKDG / revision-guide family and model naming for the
 * pre-Zen families; Hygon — arch/x86/kernel/cpu/hygon.c (family 18H, Zen-derived "Dhyana").
 */
public final class Microarchitectures {

    /** One row: models {@code first..last} (inclusive) of a vendor's display family. */
    public record Entry(String vendor, int family, int first, int last, String name, String coreNames) {
        public Entry {
            if (first > last) {
                throw new IllegalArgumentException("empty model range " + first + ".." + last + " for " + name);
            }
        }

        boolean matches(Identity id) {
            return vendor.equals(id.vendor()) && family == id.family() && id.model() >= first && id.model() <= last;
        }
    }

    private static final String I = IdentityDecoder.INTEL;
    private static final String A = IdentityDecoder.AMD;

    /** First match wins, so narrower rows (Zen+) precede the ranges they sit in. */
    private static final List<Entry> TABLE = List.of(
            // Intel family 6, big cores (intel-family.h "Big Core" group)
            intel(0x0E, "Yonah", "Yonah"),
            intel(0x0F, "Core", "Merom"),
            intel(0x16, "Core", "Merom-L"),
            intel(0x17, "Core", "Penryn"),
            intel(0x1D, "Core", "Dunnington"),
            intel(0x1E, "Nehalem", "Nehalem"),
            intel(0x1F, "Nehalem", "Nehalem (Auburndale / Havendale)"),
            intel(0x1A, "Nehalem", "Nehalem-EP"),
            intel(0x2E, "Nehalem", "Nehalem-EX"),
            intel(0x25, "Westmere", "Westmere"),
            intel(0x2C, "Westmere", "Westmere-EP"),
            intel(0x2F, "Westmere", "Westmere-EX"),
            intel(0x2A, "Sandy Bridge", "Sandy Bridge"),
            intel(0x2D, "Sandy Bridge", "Sandy Bridge-X"),
            intel(0x3A, "Ivy Bridge", "Ivy Bridge"),
            intel(0x3E, "Ivy Bridge", "Ivy Bridge-X"),
            intel(0x3C, "Haswell", "Haswell"),
            intel(0x3F, "Haswell", "Haswell-X"),
            intel(0x45, "Haswell", "Haswell-L"),
            intel(0x46, "Haswell", "Haswell-G"),
            intel(0x3D, "Broadwell", "Broadwell"),
            intel(0x47, "Broadwell", "Broadwell-G"),
            intel(0x4F, "Broadwell", "Broadwell-X"),
            intel(0x56, "Broadwell", "Broadwell-D"),
            intel(0x4E, "Skylake", "Skylake"),
            intel(0x5E, "Skylake", "Skylake"),
            intel(0x55, "Skylake-X", "Skylake (also Cascade Lake, Cooper Lake by stepping)"),
            intel(0x8E, "Kaby Lake", "Skylake"),
            intel(0x9E, "Kaby Lake", "Skylake"),
            intel(0xA5, "Comet Lake", "Skylake"),
            intel(0xA6, "Comet Lake", "Skylake"),
            intel(0x66, "Cannon Lake", "Palm Cove"),
            intel(0x6A, "Ice Lake", "Sunny Cove"),
            intel(0x6C, "Ice Lake", "Sunny Cove"),
            intel(0x7D, "Ice Lake", "Sunny Cove"),
            intel(0x7E, "Ice Lake", "Sunny Cove"),
            intel(0x9D, "Ice Lake", "Sunny Cove"),
            intel(0xA7, "Rocket Lake", "Cypress Cove"),
            intel(0x8C, "Tiger Lake", "Willow Cove"),
            intel(0x8D, "Tiger Lake", "Willow Cove"),
            intel(0x8F, "Sapphire Rapids", "Golden Cove"),
            intel(0xCF, "Emerald Rapids", "Raptor Cove"),
            intel(0xAD, "Granite Rapids", "Redwood Cove"),
            intel(0xAE, "Granite Rapids", "Redwood Cove"),
            intel(0xD7, "Bartlett Lake", "Raptor Cove"),
            // hybrid
            intel(0x8A, "Lakefield", "Sunny Cove + Tremont"),
            intel(0x97, "Alder Lake", "Golden Cove + Gracemont"),
            intel(0x9A, "Alder Lake", "Golden Cove + Gracemont"),
            intel(0xB7, "Raptor Lake", "Raptor Cove + Enhanced Gracemont"),
            intel(0xBA, "Raptor Lake", "Raptor Cove + Enhanced Gracemont"),
            intel(0xBF, "Raptor Lake", "Raptor Cove + Enhanced Gracemont"),
            intel(0xAC, "Meteor Lake", "Redwood Cove + Crestmont"),
            intel(0xAA, "Meteor Lake", "Redwood Cove + Crestmont"),
            intel(0xC5, "Arrow Lake", "Lion Cove + Skymont"),
            intel(0xC6, "Arrow Lake", "Lion Cove + Skymont"),
            intel(0xB5, "Arrow Lake", "Lion Cove + Skymont"),
            intel(0xBD, "Lunar Lake", "Lion Cove + Skymont"),
            intel(0xCC, "Panther Lake", "Cougar Cove + Darkmont"),
            intel(0xD5, "Wildcat Lake", "Cougar Cove + Darkmont"),
            // small cores (intel-family.h "Small Core" group)
            intel(0x1C, "Bonnell", "Bonnell (Diamondville, Pineview)"),
            intel(0x26, "Bonnell", "Bonnell (Silverthorne, Lincroft)"),
            intel(0x36, "Saltwell", "Saltwell (Cedarview)"),
            intel(0x27, "Saltwell", "Saltwell (Penwell)"),
            intel(0x35, "Saltwell", "Saltwell (Cloverview)"),
            intel(0x37, "Silvermont", "Silvermont (Bay Trail, Valleyview)"),
            intel(0x4D, "Silvermont", "Silvermont (Avaton, Rangely)"),
            intel(0x4A, "Silvermont", "Silvermont (Merrifield)"),
            // 5AH was INTEL_ATOM_AIRMONT_MID until Linux 6.15 renamed it SILVERMONT_MID2 (Anniedale).
            intel(0x5A, "Silvermont", "Silvermont (Anniedale / Moorefield)"),
            intel(0x4C, "Airmont", "Airmont (Cherry Trail, Braswell)"),
            intel(0x75, "Airmont", "Airmont (Lightning Mountain)"),
            intel(0x5C, "Goldmont", "Goldmont (Apollo Lake)"),
            intel(0x5F, "Goldmont", "Goldmont (Denverton)"),
            intel(0x7A, "Goldmont Plus", "Goldmont Plus (Gemini Lake)"),
            intel(0x86, "Tremont", "Tremont (Jacobsville)"),
            intel(0x96, "Tremont", "Tremont (Elkhart Lake)"),
            intel(0x9C, "Tremont", "Tremont (Jasper Lake)"),
            intel(0xBE, "Gracemont", "Gracemont (Alder Lake-N)"),
            intel(0xAF, "Crestmont", "Crestmont (Sierra Forest)"),
            intel(0xB6, "Crestmont", "Crestmont (Grand Ridge)"),
            intel(0xDD, "Darkmont", "Darkmont (Clearwater Forest)"),
            // Xeon Phi
            intel(0x57, "Knights Landing", "Knights Landing"),
            intel(0x85, "Knights Mill", "Knights Mill"),
            // Intel family 0FH (NetBurst), 12H (18) and 13H (19)
            new Entry(I, 0x0F, 0x00, 0x06, "NetBurst", "NetBurst"),
            new Entry(I, 0x12, 0x01, 0x01, "Nova Lake", "Coyote Cove + Arctic Wolf"),
            new Entry(I, 0x12, 0x03, 0x03, "Nova Lake", "Coyote Cove + Arctic Wolf"),
            new Entry(I, 0x13, 0x01, 0x01, "Diamond Rapids", "Panther Cove"),

            // AMD (family → model ranges)
            new Entry(A, 0x0F, 0x00, 0xFF, "K8", "K8"),
            new Entry(A, 0x10, 0x00, 0xFF, "K10", "K10"),
            new Entry(A, 0x11, 0x00, 0xFF, "Griffin", "K8 (Family 11h)"),
            new Entry(A, 0x12, 0x00, 0xFF, "Llano", "K10 (Husky)"),
            new Entry(A, 0x14, 0x00, 0xFF, "Bobcat", "Bobcat"),
            new Entry(A, 0x15, 0x00, 0x01, "Bulldozer", "Bulldozer"),
            new Entry(A, 0x15, 0x02, 0x02, "Piledriver", "Piledriver"),
            new Entry(A, 0x15, 0x10, 0x1F, "Piledriver", "Piledriver"),
            new Entry(A, 0x15, 0x30, 0x3F, "Steamroller", "Steamroller"),
            new Entry(A, 0x15, 0x60, 0x7F, "Excavator", "Excavator"),
            new Entry(A, 0x16, 0x00, 0x0F, "Jaguar", "Jaguar"),
            new Entry(A, 0x16, 0x30, 0x3F, "Puma", "Puma"),
            // Zen+ (Pinnacle Ridge / Colfax 08H, Picasso 18H): Linux counts them as ZEN1.
            new Entry(A, 0x17, 0x08, 0x08, "Zen+", "Zen+"),
            new Entry(A, 0x17, 0x18, 0x18, "Zen+", "Zen+"),
            new Entry(A, 0x17, 0x00, 0x2F, "Zen", "Zen"),
            new Entry(A, 0x17, 0x50, 0x5F, "Zen", "Zen"),
            new Entry(A, 0x17, 0x30, 0x4F, "Zen 2", "Zen 2"),
            new Entry(A, 0x17, 0x60, 0x7F, "Zen 2", "Zen 2"),
            new Entry(A, 0x17, 0x90, 0x91, "Zen 2", "Zen 2"),
            new Entry(A, 0x17, 0xA0, 0xAF, "Zen 2", "Zen 2"),
            new Entry(A, 0x19, 0x00, 0x0F, "Zen 3", "Zen 3"),
            new Entry(A, 0x19, 0x20, 0x5F, "Zen 3", "Zen 3"),
            new Entry(A, 0x19, 0x10, 0x1F, "Zen 4", "Zen 4"),
            new Entry(A, 0x19, 0x60, 0xAF, "Zen 4", "Zen 4"),
            new Entry(A, 0x1A, 0x00, 0x2F, "Zen 5", "Zen 5"),
            new Entry(A, 0x1A, 0x40, 0x4F, "Zen 5", "Zen 5"),
            new Entry(A, 0x1A, 0x60, 0x7F, "Zen 5", "Zen 5"),
            new Entry(A, 0x1A, 0x50, 0x5F, "Zen 6", "Zen 6"),
            new Entry(A, 0x1A, 0x80, 0xAF, "Zen 6", "Zen 6"),
            new Entry(A, 0x1A, 0xC0, 0xCF, "Zen 6", "Zen 6"),
            new Entry(IdentityDecoder.HYGON, 0x18, 0x00, 0xFF, "Dhyana", "Zen"));

    private Microarchitectures() {
    }

    public static Microarchitecture lookup(Identity id) {
        for (Entry e : TABLE) {
            if (e.matches(id)) {
                return new Microarchitecture(e.name(), e.coreNames());
            }
        }
        return Microarchitecture.UNKNOWN;
    }

    /** The table rows, in lookup order. */
    public static List<Entry> table() {
        return TABLE;
    }

    private static Entry intel(int model, String name, String coreNames) {
        return new Entry(I, 0x06, model, model, name, coreNames);
    }
}
