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

    LoopLayout(LoopShape shape, long base, int body) {
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
}
