package dev.hwtool.api;

/**
 * What one CPUID instruction returned: EAX, EBX, ECX and EDX after {@code CPUID} with the leaf in
 * EAX and the subleaf in ECX (SDM Vol. 2A, CPUID). Java's {@code int} holds each register's 32
 * bits; read a register as unsigned with {@link Integer#toUnsignedLong(int)}.
 */
public record CpuidResult(int eax, int ebx, int ecx, int edx) {

    /** Bit {@code bit} (0..31) of {@code register} ("eax", "ebx", "ecx" or "edx"). */
    public boolean bit(String register, int bit) {
        if (bit < 0 || bit > 31) {
            throw new IllegalArgumentException("bit " + bit + " is not in 0..31");
        }
        int value = switch (register.toLowerCase(java.util.Locale.ROOT)) {
            case "eax" -> eax;
            case "ebx" -> ebx;
            case "ecx" -> ecx;
            case "edx" -> edx;
            default -> throw new IllegalArgumentException("no register " + register + " (eax, ebx, ecx, edx)");
        };
        return (value >>> bit & 1) != 0;
    }

    @Override
    public String toString() {
        return String.format("eax=0x%08x ebx=0x%08x ecx=0x%08x edx=0x%08x", eax, ebx, ecx, edx);
    }
}
