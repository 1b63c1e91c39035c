package dev.hwtool.sim.workload;

/**
 * Where a loop nest's instructions sit, precomputed so the run only indexes arrays:
 * <pre>
 *   top[0]   body            level 0 (outer) starts here
 *   top[1]   body            level 1 ...
 *   top[L-1] body            innermost
 *   guard[j] Jcc else[j]     if site j: taken runs the else arm
 *            body            then arm
 *   jmp[j]   JMP join[j]
 *   else[j]  body + 1        else arm, one instruction longer so both arms retire alike
 *   join[j]  ...
 *   back[L-1] Jcc top[L-1]   back edges, innermost first
 *   back[0]   Jcc top[0]
 *   end
 * </pre>
 * {@link #image} writes this layout's machine code as one function, {@code main}, ending with a
 * RET after the outer back edge (never retired: the run ends there); {@link LoopRun} retires its
 * branches from the same arrays.
 */
final class LoopLayout {

    final long[] top;
    final long[] back;
    final long[] guard;
    final long[] elseArm;
    final long[] jmp;
    final long[] join;
    /** Bytes from the base to the end of the code. */
    final long extent;
    private final long base;
    private final int body;

    LoopLayout(LoopShape shape, long base, int body) {
        this.base = base;
        this.body = body;
        int levels = shape.levels();
        int ifs = shape.ifTakenEighths().size();
        top = new long[levels];
        back = new long[levels];
        guard = new long[ifs];
        elseArm = new long[ifs];
        jmp = new long[ifs];
        join = new long[ifs];
        long block = (long) Encoding.PLAIN * body;
        long pos = 0;
        for (int k = 0; k < levels; k++) {
            top[k] = base + pos;
            pos += block;
        }
        for (int j = 0; j < ifs; j++) {
            guard[j] = base + pos;
            pos += Encoding.JCC + block;
            jmp[j] = base + pos;
            pos += Encoding.JMP;
            elseArm[j] = base + pos;
            pos += block + Encoding.PLAIN;
            join[j] = base + pos;
        }
        for (int k = levels - 1; k >= 0; k--) {
            back[k] = base + pos;
            pos += Encoding.JCC;
        }
        extent = pos;
    }

    ProgramImage image() {
        Assembler a = new Assembler(base).function("main", base);
        for (long t : top) {
            a.plain(t, body);
        }
        for (int j = 0; j < guard.length; j++) {
            a.jcc(guard[j], elseArm[j]).plain(guard[j] + Encoding.JCC, body).jmp(jmp[j], join[j])
                    .plain(elseArm[j], body + 1);
        }
        for (int k = back.length - 1; k >= 0; k--) {
            a.jcc(back[k], top[k]);
        }
        return a.ret(base + extent).image(base);
    }
}
