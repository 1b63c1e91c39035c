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
    void theHypervisorIsNamedOnceFromItsSignature() {
        // bhyve's signature is "bhyve bhyve " (FreeBSD sys/amd64/vmm/x86.c): named "bhyve", not twice
        assertEquals("bhyve", new Hypervisor(true, "bhyve bhyve ").name());
        assertEquals("hypervisor bhyve", new Hypervisor(true, "bhyve bhyve ").inSentence());
        assertEquals("KVM", new Hypervisor(true, "KVMKVMKVM\0\0\0").name());
        assertEquals("KVM", HypervisorDecoder.decode(Dumps.epycKvmGuest()).name());
        assertEquals("Hyper-V", new Hypervisor(true, "Microsoft Hv").name());
        assertEquals("QEMU (TCG)", new Hypervisor(true, "TCGTCGTCGTCG").name());
        // an unknown signature is shown as it is; none at all reads "a hypervisor"
        assertEquals("NewVisor", new Hypervisor(true, " NewVisor ").name());
        assertEquals("a hypervisor", new Hypervisor(true, "").inSentence());
        assertEquals("", Hypervisor.NONE.name());
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
