package dev.hwtool.arch.branch;

/**
 * Classifies the 64-bit-mode x86 instruction at the start of some code bytes as a {@link BranchKind},
 * from the one-byte and two-byte opcode maps (Intel SDM Vol. 2D Appendix A, Tables)
 * and group 5's ModR/M reg field (Table A-6: FF /2 CALL Ev, /3 CALL Mp, /4 JMP Ev, /5 JMP Mp).
 * Legacy prefixes (SDM Vol. 2A §2.1.1: lock F0, rep/bnd F2/F3, segment and branch hints
 * 2E/36/3E/26/64/65, operand and address size 66/67) and a REX prefix (40–4F, §2.2.1) are skipped.
 * Pure: it reads only the array it is given.
 */
public final class X86BranchDecoder {

    /** SDM Vol. 2A §2.3.11: an instruction is at most 15 bytes, so at most 14 prefixes precede the opcode. */
    private static final int MAX_INSN = 15;

    private X86BranchDecoder() {
    }

    public static BranchKind classify(byte[] code) {
        int i = 0;
        int n = Math.min(code.length, MAX_INSN);
        while (i < n && isLegacyPrefix(code[i] & 0xFF)) {
            i++;
        }
        if (i < n && (code[i] & 0xF0) == 0x40) { // REX
            i++;
        }
        if (i >= n) {
            return BranchKind.OTHER;
        }
        int op = code[i] & 0xFF;
        if (op >= 0x70 && op <= 0x7F) { // Jcc rel8
            return BranchKind.JCC;
        }
        return switch (op) {
            case 0xE8 -> BranchKind.CALL;               // CALL rel32
            case 0xE9, 0xEB -> BranchKind.JMP;          // JMP rel32, rel8
            case 0xE0, 0xE1, 0xE2, 0xE3 -> BranchKind.JCC; // LOOPNE, LOOPE, LOOP, JrCXZ rel8
            case 0xC3, 0xC2, 0xCB, 0xCA -> BranchKind.RET; // RET, RET imm16, far RET, far RET imm16
            case 0xCF -> BranchKind.SYSRET_IRET;       // IRET
            case 0xFF -> group5(code, i + 1, n);
            case 0x0F -> twoByte(code, i + 1, n);
            default -> BranchKind.OTHER;
        };
    }

    private static BranchKind group5(byte[] code, int at, int n) {
        if (at >= n) {
            return BranchKind.OTHER;
        }
        int reg = (code[at] >> 3) & 7; // ModR/M bits 5:3
        return switch (reg) {
            case 2, 3 -> BranchKind.IND_CALL;
            case 4, 5 -> BranchKind.IND_JMP;
            default -> BranchKind.OTHER; // INC, DEC, PUSH
        };
    }

    private static BranchKind twoByte(byte[] code, int at, int n) {
        if (at >= n) {
            return BranchKind.OTHER;
        }
        int op = code[at] & 0xFF;
        if (op >= 0x80 && op <= 0x8F) { // Jcc rel32
            return BranchKind.JCC;
        }
        return switch (op) {
            case 0x05 -> BranchKind.SYSCALL;
            case 0x07 -> BranchKind.SYSRET_IRET;
            default -> BranchKind.OTHER;
        };
    }

    private static boolean isLegacyPrefix(int b) {
        return switch (b) {
            case 0xF0, 0xF2, 0xF3, 0x2E, 0x36, 0x3E, 0x26, 0x64, 0x65, 0x66, 0x67 -> true;
            default -> false;
        };
    }
}
