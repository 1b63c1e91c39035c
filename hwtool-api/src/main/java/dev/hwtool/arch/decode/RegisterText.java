package dev.hwtool.arch.decode;

import java.nio.charset.StandardCharsets;

/** ASCII text packed little-endian into CPUID registers (vendor, brand, hypervisor signatures). */
final class RegisterText {

    private RegisterText() {
    }

    /** The bytes of {@code regs} in order, up to the first NUL. */
    static String of(int... regs) {
        byte[] b = new byte[regs.length * 4];
        int n = 0;
        outer:
        for (int r : regs) {
            for (int i = 0; i < 4; i++) {
                byte c = (byte) (r >>> (8 * i));
                if (c == 0) {
                    break outer;
                }
                b[n++] = c;
            }
        }
        return new String(b, 0, n, StandardCharsets.ISO_8859_1);
    }
}
