package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidSnapshot;
import org.junit.jupiter.api.Test;

import static dev.hwtool.arch.decode.Dumps.leaf;
import static dev.hwtool.arch.decode.Dumps.snapshot;
import static org.junit.jupiter.api.Assertions.assertEquals;

class HypervisorDecoderTest {

    @Test
    void kvmGuest() {
        assertEquals(new Hypervisor(true, "KVMKVMKVM"), HypervisorDecoder.decode(Dumps.epycKvmGuest()));
    }

    @Test
    void bareMetalIgnoresLeaf40000000() {
        // On bare metal Intel answers 40000000H with the highest basic leaf (here 16H).
        assertEquals(Hypervisor.NONE, HypervisorDecoder.decode(new IntelOutOfRange(Dumps.skylake())));
        assertEquals(Hypervisor.NONE, HypervisorDecoder.decode(Dumps.core2()));
    }

    @Test
    void hyperVSignatureUsesAllTwelveBytes() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0xD, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x1, 0x000306C3, 0, 0x80000000, 0),
                leaf(0x40000000, 0x4000000B, 0x7263694D, 0x666F736F, 0x76482074));
        assertEquals(new Hypervisor(true, "Microsoft Hv"), HypervisorDecoder.decode(s));
    }

    @Test
    void hypervisorBitWithoutSignatureLeaf() {
        CpuidSnapshot s = snapshot(
                leaf(0x0, 0x1, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x1, 0x000306C3, 0, 0x80000000, 0));
        assertEquals(new Hypervisor(true, ""), HypervisorDecoder.decode(s));
    }
}
