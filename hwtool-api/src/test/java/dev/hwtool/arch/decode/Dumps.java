package dev.hwtool.arch.decode;

import dev.hwtool.arch.cpuid.CpuidLeaf;
import dev.hwtool.arch.cpuid.CpuidRegs;
import dev.hwtool.arch.cpuid.CpuidSnapshot;

import java.util.List;

/**
 * CPUID leaves copied by hand from /work/shared/data/cpuid-dumps/ (logical CPU #0 unless
 * noted): only the leaves the decoders read, plus each processor's highest basic leaf (what Intel
 * returns for out-of-range leaves). Not parsed from the files, so these tests do not
 * depend on the dump reader.
 */
final class Dumps {

    private Dumps() {
    }

    static CpuidLeaf leaf(int leaf, int eax, int ebx, int ecx, int edx) {
        return new CpuidLeaf(leaf, 0, new CpuidRegs(eax, ebx, ecx, edx));
    }

    static CpuidSnapshot snapshot(CpuidLeaf... leaves) {
        return new CpuidSnapshot(0, List.of(leaves));
    }

    /** core2.txt: Core 2 Duo E6750. */
    static CpuidSnapshot core2() {
        return snapshot(
                leaf(0x00000000, 0x0000000A, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000006FB, 0x00020800, 0x0000E3FD, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x0000000A, 0x07280202, 0x00000000, 0x00000000, 0x00000503),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000001, 0x20100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x726F4320, 0x4D542865),
                leaf(0x80000003, 0x44203229, 0x43206F75, 0x20205550, 0x45202020),
                leaf(0x80000004, 0x30353736, 0x20402020, 0x36362E32, 0x007A4847));
    }

    /** bonnell.txt: Atom 230. */
    static CpuidSnapshot bonnell() {
        return snapshot(
                leaf(0x00000000, 0x0000000A, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000106C2, 0x00020800, 0x0040E31D, 0xBFE9FBFF),
                leaf(0x0000000A, 0x07280203, 0x00000000, 0x00000000, 0x00002501),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000001, 0x20100000),
                leaf(0x80000002, 0x20202020, 0x20202020, 0x746E4920, 0x52286C65),
                leaf(0x80000003, 0x74412029, 0x54286D6F, 0x4320294D, 0x20205550),
                leaf(0x80000004, 0x20303332, 0x20402020, 0x30362E31, 0x007A4847));
    }

    /** silvermont.txt: Celeron J1900. */
    static CpuidSnapshot silvermont() {
        return snapshot(
                leaf(0x00000000, 0x0000000B, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x00030673, 0x00100800, 0x41D8E3BF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x00002282, 0x00000000, 0x00000000),
                leaf(0x0000000A, 0x07280203, 0x00000000, 0x00000000, 0x00004503),
                leaf(0x0000000B, 0x00000001, 0x00000001, 0x00000100, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000101, 0x28100000),
                leaf(0x80000002, 0x20202020, 0x6E492020, 0x286C6574, 0x43202952),
                leaf(0x80000003, 0x72656C65, 0x52286E6F, 0x50432029, 0x4A202055),
                leaf(0x80000004, 0x30303931, 0x20402020, 0x39392E31, 0x007A4847));
    }

    /** nehalem.txt: Core i7 Q 720 (the older "CPUID Registers (CPU #1)" layout). */
    static CpuidSnapshot nehalem() {
        return snapshot(
                leaf(0x00000000, 0x0000000B, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000106E5, 0x00100800, 0x0098E3FD, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x0000000A, 0x07300403, 0x00000044, 0x00000000, 0x00000603),
                leaf(0x0000000B, 0x00000001, 0x00000002, 0x00000100, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000001, 0x28100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x726F4320, 0x4D542865),
                leaf(0x80000003, 0x37692029, 0x55504320, 0x20202020, 0x51202020),
                leaf(0x80000004, 0x30323720, 0x20402020, 0x30362E31, 0x007A4847));
    }

    /** haswell.txt: Core i7-4770. */
    static CpuidSnapshot haswell() {
        return snapshot(
                leaf(0x00000000, 0x0000000D, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000306C3, 0x00100800, 0x7FFAFBFF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x000027AB, 0x00000000, 0x00000000),
                leaf(0x0000000A, 0x07300403, 0x00000000, 0x00000000, 0x00000603),
                leaf(0x0000000D, 0x00000007, 0x00000340, 0x00000340, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000021, 0x2C100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x726F4320, 0x4D542865),
                leaf(0x80000003, 0x37692029, 0x3737342D, 0x50432030, 0x20402055),
                leaf(0x80000004, 0x30342E33, 0x007A4847, 0x00000000, 0x00000000));
    }

    /** skylake.txt: Core i7-6700K. */
    static CpuidSnapshot skylake() {
        return snapshot(
                leaf(0x00000000, 0x00000016, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000506E3, 0x00100800, 0x7FFAFBBF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x029C6FBF, 0x00000000, 0x9C002400),
                leaf(0x0000000A, 0x07300404, 0x00000000, 0x00000000, 0x00000603),
                leaf(0x00000016, 0x00000FA0, 0x00001068, 0x00000064, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000121, 0x2C100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x726F4320, 0x4D542865),
                leaf(0x80000003, 0x37692029, 0x3037362D, 0x43204B30, 0x40205550),
                leaf(0x80000004, 0x302E3420, 0x7A484730, 0x00000000, 0x00000000));
    }

    /** goldmont.txt: Celeron J3455. */
    static CpuidSnapshot goldmont() {
        return snapshot(
                leaf(0x00000000, 0x00000015, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000506C9, 0x00200800, 0x4FF8EBBF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x2294E283, 0x00000000, 0x00000000),
                leaf(0x0000000A, 0x07300404, 0x00000000, 0x00000000, 0x00000603),
                leaf(0x00000015, 0x00000003, 0x000000EA, 0x0124F800, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000101, 0x2C100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x6C654320, 0x6E6F7265),
                leaf(0x80000003, 0x20295228, 0x20555043, 0x3534334A, 0x20402035),
                leaf(0x80000004, 0x30352E31, 0x007A4847, 0x00000000, 0x00000000));
    }

    /** goldmont-plus.txt: Celeron J4105. */
    static CpuidSnapshot goldmontPlus() {
        return snapshot(
                leaf(0x00000000, 0x00000018, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000706A1, 0x00400800, 0x4FF8EBBF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0x2294E287, 0x40400004, 0x2C000000),
                leaf(0x0000000A, 0x07300404, 0x00000000, 0x00000000, 0x00008603),
                leaf(0x00000018, 0x00000004, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000101, 0x2C100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x6C654320, 0x6E6F7265),
                leaf(0x80000003, 0x20295228, 0x3031344A, 0x50432035, 0x20402055),
                leaf(0x80000004, 0x30352E31, 0x007A4847, 0x00000000, 0x00000000));
    }

    /** icelake.txt: Core i7-1065G7 (perfmon v5 with the ECX fixed-counter bitmap). */
    static CpuidSnapshot icelake() {
        return snapshot(
                leaf(0x00000000, 0x0000001B, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x000706E5, 0x00100800, 0x7FFAFBBF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000000, 0xF2BF27EF, 0x40405F4E, 0xBC000410),
                leaf(0x0000000A, 0x08300805, 0x00000000, 0x0000000F, 0x00008604),
                leaf(0x0000001A, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x0000001B, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000121, 0x2C100000),
                leaf(0x80000002, 0x65746E49, 0x2952286C, 0x726F4320, 0x4D542865),
                leaf(0x80000003, 0x37692029, 0x3630312D, 0x20374735, 0x20555043),
                leaf(0x80000004, 0x2E312040, 0x48473033, 0x0000007A, 0x00000000));
    }

    /** alderlake.txt logical CPU #0: Core i9-12900K, a Golden Cove P-core. */
    static CpuidSnapshot alderlakePCore() {
        return alderlake(0x00800800, 0x40000001, 0x4000000B);
    }

    /** alderlake.txt logical CPU #16: the same package's Gracemont E-core. */
    static CpuidSnapshot alderlakeECore() {
        return alderlake(0x40800800, 0x20000001, 0xC000000B);
    }

    private static CpuidSnapshot alderlake(int leaf1Ebx, int leaf1AEax, int leaf1CEax) {
        return snapshot(
                leaf(0x00000000, 0x00000020, 0x756E6547, 0x6C65746E, 0x49656E69),
                leaf(0x00000001, 0x00090672, leaf1Ebx, 0x7FFAFBFF, 0xBFEBFBFF),
                leaf(0x00000007, 0x00000001, 0x239CA7EB, 0x98C027AC, 0xFC1CC410),
                leaf(0x0000000A, 0x07300605, 0x00000000, 0x00000007, 0x00008603),
                leaf(0x0000001A, leaf1AEax, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x0000001C, leaf1CEax, 0x00000007, 0x00000007, 0x00000000),
                leaf(0x00000020, 0x00000000, 0x00000001, 0x00000000, 0x00000000),
                leaf(0x80000000, 0x80000008, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000001, 0x00000000, 0x00000000, 0x00000121, 0x2C100000),
                leaf(0x80000002, 0x68743231, 0x6E654720, 0x746E4920, 0x52286C65),
                leaf(0x80000003, 0x6F432029, 0x54286572, 0x6920294D, 0x32312D39),
                leaf(0x80000004, 0x4B303039, 0x00000000, 0x00000000, 0x00000000));
    }

    /** amd-epyc-kvm-guest.cpuid-r.txt CPU 0: an AMD EPYC KVM guest. */
    static CpuidSnapshot epycKvmGuest() {
        return snapshot(
                leaf(0x00000000, 0x0000001C, 0x68747541, 0x444D4163, 0x69746E65),
                leaf(0x00000001, 0x00B00F21, 0x00020800, 0xFFFA3203, 0x178BFBFF),
                leaf(0x00000007, 0x00000001, 0xF1BF07AB, 0x00405FC6, 0x00000110),
                leaf(0x0000000A, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x0000001A, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x0000001C, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x40000000, 0x40000001, 0x4B4D564B, 0x564B4D56, 0x0000004D),
                leaf(0x80000000, 0x80000021, 0x68747541, 0x444D4163, 0x69746E65),
                leaf(0x80000001, 0x00B00F21, 0x40000000, 0x004003F3, 0x2FD3FBFF),
                leaf(0x80000002, 0x20444D41, 0x43595045, 0x00000000, 0x00000000),
                leaf(0x80000003, 0x00000000, 0x00000000, 0x00000000, 0x00000000),
                leaf(0x80000004, 0x00000000, 0x00000000, 0x00000000, 0x00000000));
    }
}
