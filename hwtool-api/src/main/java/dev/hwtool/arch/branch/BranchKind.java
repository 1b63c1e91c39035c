package dev.hwtool.arch.branch;

/** What kind of control transfer an x86 instruction is, as {@link X86BranchDecoder} tells them apart. */
public enum BranchKind {
    /** Near relative call (E8). */
    CALL,
    /** Indirect call through a register or memory (FF /2, far FF /3). */
    IND_CALL,
    /** Return (near C3/C2, far CB/CA). */
    RET,
    /** Conditional jump (7x, 0F 8x, LOOPcc E0–E2, JrCXZ E3). */
    JCC,
    /** Unconditional relative jump (EB, E9). */
    JMP,
    /** Indirect jump (FF /4, far FF /5). */
    IND_JMP,
    /** SYSCALL (0F 05). */
    SYSCALL,
    /** SYSRET (0F 07) or IRET (CF): return from the kernel. */
    SYSRET_IRET,
    /** Not a branch, or not decodable from the bytes given. */
    OTHER
}
