package dev.hwtool.sim.workload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes the machine code of a layout at the addresses the layout computed, so that the image
 * and the branch stream come from the same arrays. Every instruction is placed at an address the
 * caller names, and the assembler checks that it starts where the previous one ended (or after
 * alignment padding): a layout whose addresses and encodings disagree fails here, not in a report.
 * Encodings from SDM Vol. 2 (the lengths are {@link Encoding}'s):
 * <pre>
 *   plain     48 83 C0 01        add rax, 1        (4 bytes, Encoding.PLAIN)
 *   Jcc rel32 0F 85 cd           jne rel32         (6, Encoding.JCC)
 *   JMP rel32 E9 cd              jmp rel32         (5, Encoding.JMP)
 *   CALL      E8 cd              call rel32        (5, Encoding.CALL)
 *   CALL r/m  41 FF 54 24 08     call [r12+8]      (5, Encoding.CALL, the indirect form)
 *   RET       C3                                   (1, Encoding.RET)
 *   padding   CC                 int3, as compilers pad between functions
 * </pre>
 * rel32 is the target minus the address of the next instruction (SDM Vol. 2A, CALL and Jcc).
 */
final class Assembler {

    private static final byte[] PLAIN = {0x48, (byte) 0x83, (byte) 0xC0, 0x01};
    private static final byte[] IND_CALL = {0x41, (byte) 0xFF, 0x54, 0x24, 0x08};
    private static final byte INT3 = (byte) 0xCC;

    private final long base;
    private final byte fill;
    private byte[] code = new byte[256];
    private long pos;
    private final List<ProgramImage.Function> functions = new ArrayList<>();
    private String open;
    private long openStart;

    Assembler(long base) {
        this(base, INT3);
    }

    /** An assembler that pads with {@code fill} (INT3 between functions, NOP 90 in a trace's straight-line code). */
    Assembler(long base, byte fill) {
        this.base = base;
        this.fill = fill;
    }

    /** Pads with the fill byte up to {@code addr} (alignment between functions); never backwards. */
    Assembler padTo(long addr) {
        long to = addr - base;
        if (to < pos) {
            throw new IllegalStateException("pad to 0x" + Long.toHexString(addr) + " is behind 0x"
                    + Long.toHexString(base + pos));
        }
        while (pos < to) {
            put(fill);
        }
        return this;
    }

    /** Starts function {@code name} at {@code addr}; the previous one ends where this one starts its padding. */
    Assembler function(String name, long addr) {
        end();
        padTo(addr);
        open = name;
        openStart = addr;
        return this;
    }

    /** Closes the open function at the current address. */
    Assembler end() {
        if (open != null) {
            functions.add(new ProgramImage.Function(open, openStart, base + pos - openStart));
            open = null;
        }
        return this;
    }

    /** {@code n} plain instructions from {@code addr}. */
    Assembler plain(long addr, long n) {
        at(addr);
        for (long i = 0; i < n; i++) {
            put(PLAIN);
        }
        return this;
    }

    Assembler jcc(long addr, long target) {
        at(addr);
        put((byte) 0x0F);
        put((byte) 0x85);
        rel32(addr + Encoding.JCC, target);
        return this;
    }

    Assembler jmp(long addr, long target) {
        at(addr);
        put((byte) 0xE9);
        rel32(addr + Encoding.JMP, target);
        return this;
    }

    Assembler call(long addr, long target) {
        at(addr);
        put((byte) 0xE8);
        rel32(addr + Encoding.CALL, target);
        return this;
    }

    Assembler indirectCall(long addr) {
        at(addr);
        put(IND_CALL);
        return this;
    }

    /** CALL r/m64 through a register: FF D0, {@code call rax}. */
    Assembler callRegister(long addr) {
        at(addr);
        put((byte) 0xFF, (byte) 0xD0);
        return this;
    }

    /** JMP r/m64 through a register: FF E0, {@code jmp rax}. */
    Assembler jmpRegister(long addr) {
        at(addr);
        put((byte) 0xFF, (byte) 0xE0);
        return this;
    }

    /** SYSCALL: 0F 05, a far transfer to the kernel. */
    Assembler syscall(long addr) {
        at(addr);
        put((byte) 0x0F, (byte) 0x05);
        return this;
    }

    /** INT imm8: CD 80, {@code int 0x80}. */
    Assembler interrupt(long addr) {
        at(addr);
        put((byte) 0xCD, (byte) 0x80);
        return this;
    }

    Assembler ret(long addr) {
        at(addr);
        put((byte) 0xC3);
        return this;
    }

    /** The code from the base to the current address, with {@code functions} (computed by the caller). */
    ProgramImage image(long entry, List<ProgramImage.Function> functions) {
        return new ProgramImage(base, Arrays.copyOf(code, (int) pos), entry, functions);
    }

    /** The code from the base to the current address, and the functions closed so far. */
    ProgramImage image(long entry) {
        end();
        return new ProgramImage(base, Arrays.copyOf(code, (int) pos), entry, functions);
    }

    private void at(long addr) {
        if (addr - base != pos) {
            throw new IllegalStateException("instruction at 0x" + Long.toHexString(addr) + " but the code so far ends at 0x"
                    + Long.toHexString(base + pos));
        }
    }

    private void rel32(long next, long target) {
        long rel = target - next;
        if (rel != (int) rel) {
            throw new IllegalStateException("rel32 cannot reach 0x" + Long.toHexString(target) + " from 0x"
                    + Long.toHexString(next));
        }
        for (int i = 0; i < 4; i++) {
            put((byte) (rel >>> (8 * i)));
        }
    }

    private void put(byte... bytes) {
        for (byte b : bytes) {
            if (pos == code.length) {
                if (code.length >= Integer.MAX_VALUE / 2) {
                    throw new IllegalStateException("program image over 1 GiB");
                }
                code = Arrays.copyOf(code, code.length * 2);
            }
            code[(int) pos++] = b;
        }
    }
}
