package dev.hwtool.linux;

import dev.hwtool.arch.decode.AmdPerf;
import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.Features;
import dev.hwtool.arch.decode.Hypervisor;
import dev.hwtool.arch.decode.Identity;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.arch.decode.Microarchitecture;

import java.util.Map;

/** Decoded CPUs built directly from the records, as the decoders would return them. */
final class CpuFixtures {

    private CpuFixtures() {
    }

    /** An AMD EPYC KVM guest like the build machine: MSR bit set, no DS, no perfmon leaf. */
    static CpuCapabilities amdEpycGuest() {
        return new CpuCapabilities(
                new Identity("AuthenticAMD", "AMD EPYC 9R45", 0x1a, 0x02, 1, 0xb00f21, 0x10, 0x80000028),
                new Microarchitecture("Zen 5", ""), false, "", new Hypervisor(true, "KVMKVMKVM"),
                new Features(true, false, false, false, false, false, false, false, false, true, true, true),
                ArchPerfmon.NONE, ArchLbr.NONE, LegacyLbr.none("not an Intel CPU"));
    }

    /**
     * A bare-metal Zen 4 EPYC (family 19h model 11h) with the flags Linux reads: PerfCtrExtCore,
     * IBS (IBS features 0x3FF), PerfMonV2 with six counters, LbrExtV2 with a 16-deep stack.
     */
    static CpuCapabilities zen4Host() {
        return amdHost(0x11, 0xa10f11, "Zen 4", new AmdPerf(true, true, true, 0x3FF, false, true, true, true, 6, 16));
    }

    /** A bare-metal Zen 3 EPYC (family 19h model 01h): BRS, IBS, PerfCtrExtCore, no leaf 80000022H. */
    static CpuCapabilities zen3Host() {
        return amdHost(0x01, 0xa00f11, "Zen 3", new AmdPerf(true, true, true, 0x3FF, true, false, false, false, 6, 0));
    }

    /** A Zen 2 EPYC (family 17h model 31h): IBS and six counters, no branch stack. */
    static CpuCapabilities zen2Host() {
        return new CpuCapabilities(new Identity("AuthenticAMD", "AMD EPYC 7702", 0x17, 0x31, 0, 0x830f10, 0x10,
                0x80000020), new Microarchitecture("Zen 2", ""), false, "", Hypervisor.NONE,
                new Features(true, false, false, false, false, false, false, false, false, true, true, false),
                ArchPerfmon.NONE, ArchLbr.NONE, LegacyLbr.none("not an Intel CPU"),
                new AmdPerf(true, true, true, 0x3FF, false, false, false, false, 6, 0));
    }

    private static CpuCapabilities amdHost(int model, int signature, String uarch, AmdPerf amd) {
        return new CpuCapabilities(new Identity("AuthenticAMD", "AMD EPYC", 0x19, model, 1, signature, 0x10, 0x80000028),
                new Microarchitecture(uarch, ""), false, "", Hypervisor.NONE,
                new Features(true, false, false, false, false, false, false, false, false, true, true, false),
                ArchPerfmon.NONE, ArchLbr.NONE, LegacyLbr.none("not an Intel CPU"), amd);
    }

    /** The Zen 4 as a KVM guest with a virtual PMU but no IBS and no LBR v2 passed through. */
    static CpuCapabilities zen4GuestWithVpmu() {
        CpuCapabilities h = zen4Host();
        return new CpuCapabilities(h.identity(), h.microarchitecture(), false, "", new Hypervisor(true, "KVMKVMKVM"),
                h.features(), h.archPerfmon(), h.archLbr(), h.legacyLbr(),
                new AmdPerf(true, true, false, 0, false, true, false, false, 6, 0));
    }

    /** An AMD EPYC KVM guest like the build machine, with its AMD flags as its dump reports them (none). */
    static CpuCapabilities amdEpycGuestDecoded() {
        CpuCapabilities g = amdEpycGuest();
        return new CpuCapabilities(g.identity(), g.microarchitecture(), false, "", g.hypervisor(), g.features(),
                g.archPerfmon(), g.archLbr(), g.legacyLbr(), new AmdPerf(true, false, false, 0, false, false, false, false,
                4, 0));
    }

    /** A bare-metal Skylake client (06_5EH): DS, DTES64, perfmon v4, 32-deep legacy LBR. */
    static CpuCapabilities skylakeHost() {
        return new CpuCapabilities(
                new Identity("GenuineIntel", "Intel(R) Core(TM) i7-6700 CPU @ 3.40GHz", 6, 0x5e, 3, 0x506e3,
                        0x16, 0x80000008),
                new Microarchitecture("Skylake", "Skylake"), false, "", Hypervisor.NONE,
                new Features(true, true, true, true, true, false, true, false, true, true, true, false),
                new ArchPerfmon(4, 4, 48, 3, 48, Map.of()), ArchLbr.NONE,
                new LegacyLbr(5, 32, 0x680, 0x6c0, 0xdc0, true, "model table (Skylake, 06_5EH)"));
    }

    /** The Skylake as a KVM guest whose hypervisor hides DS (as KVM does). */
    static CpuCapabilities skylakeGuestWithoutDs() {
        CpuCapabilities h = skylakeHost();
        return new CpuCapabilities(h.identity(), h.microarchitecture(), false, "", new Hypervisor(true, "KVMKVMKVM"),
                new Features(true, false, false, false, true, false, false, false, true, true, true, true),
                h.archPerfmon(), h.archLbr(), h.legacyLbr());
    }
}
