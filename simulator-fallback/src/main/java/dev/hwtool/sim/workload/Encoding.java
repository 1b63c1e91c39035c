package dev.hwtool.sim.workload;

/**
 * Instruction lengths the generators lay code out with, so that addresses are those of a
 * plausible x86-64 program and a return lands on the byte after its call. Forms from SDM Vol. 2.
 */
final class Encoding {

    /** Any non-branch instruction: the model's average length. */
    static final int PLAIN = 4;
    /** Jcc rel32: 0F 8x cd. */
    static final int JCC = 6;
    /** JMP rel32: E9 cd. */
    static final int JMP = 5;
    /**
     * CALL rel32 (E8 cd) and, by the model's choice, indirect calls too: CALL r/m64 with
     * REX.B and a SIB byte and disp8 ({@code call [r12+8]}, 41 FF 54 24 08) is also 5 bytes.
     * So every return address is the call site + 5.
     */
    static final int CALL = 5;
    /** RET: C3. */
    static final int RET = 1;
    /** Functions start on 16-byte boundaries, as compilers align them. */
    static final int FUNCTION_ALIGN = 16;

    private Encoding() {
    }
}
