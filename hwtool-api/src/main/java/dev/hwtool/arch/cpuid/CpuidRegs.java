package dev.hwtool.arch.cpuid;

/**
 * The four registers one CPUID execution returns, in the order the instruction
 * and {@code struct cpuid_regs} (arch/x86/kernel/cpuid.c) name them.
 */
public record CpuidRegs(int eax, int ebx, int ecx, int edx) {

    public static final CpuidRegs ZERO = new CpuidRegs(0, 0, 0, 0);

    /** Which of the four output registers. */
    public enum Reg { EAX, EBX, ECX, EDX }

    public int get(Reg r) {
        return switch (r) {
            case EAX -> eax;
            case EBX -> ebx;
            case ECX -> ecx;
            case EDX -> edx;
        };
    }

    public boolean bit(Reg r, int bit) {
        return ((get(r) >>> bit) & 1) != 0;
    }

    /** Bits {@code hi..lo} of a register, inclusive, as in the SDM's {@code EAX[15:8]}. */
    public int bits(Reg r, int hi, int lo) {
        int width = hi - lo + 1;
        int v = get(r) >>> lo;
        return width >= 32 ? v : v & ((1 << width) - 1);
    }

    public boolean isZero() {
        return (eax | ebx | ecx | edx) == 0;
    }

    /** Little-endian bytes eax, ebx, ecx, edx: the 16 bytes /dev/cpu/N/cpuid returns. */
    public static CpuidRegs fromLittleEndian(byte[] b, int off) {
        return new CpuidRegs(le32(b, off), le32(b, off + 4), le32(b, off + 8), le32(b, off + 12));
    }

    private static int le32(byte[] b, int o) {
        return (b[o] & 0xFF) | (b[o + 1] & 0xFF) << 8 | (b[o + 2] & 0xFF) << 16 | (b[o + 3] & 0xFF) << 24;
    }
}
