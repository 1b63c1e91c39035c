package dev.hwtool.sim.workload;

import java.util.SplittableRandom;

/**
 * The fixed program a call tree runs in, drawn from the seed and laid out once in arrays.
 *
 * <p>{@code main} at the base: a block of {@link #MAIN_BLOCK} instructions, an indirect call
 * (a dispatcher through a function pointer), a Jcc back to the block. Then {@link #POOL}
 * functions per call depth 1..depth, each 16-byte aligned:
 * <pre>
 *   entry[f]      block(f)
 *   guard[s]      Jcc call[s]+5        slot s: taken skips the call (if (cond) g();)
 *   call[s]       CALL g               5 bytes; g returns to call[s]+5
 *                 block(f)
 *   ...           (fanout slots; functions at the deepest level have none)
 *   ret[f]        RET
 * </pre>
 * Per function the seed draws the block length (1..8); per slot the chance in eighths that
 * the call is made (4..7), whether the call is indirect (1 in 4) and a direct call's callee
 * among the next level's functions. Slot s of function f is {@code f * fanout + j}.
 *
 * <p>{@link #image} writes this layout's machine code: the run ({@link CallTreeRun}) and the
 * image read the same arrays, so every branch the run retires is the instruction at its source.
 * Functions are named {@code main} and {@code fL_K}, the K-th function (0..3) of call depth L.
 */
final class CallTreeLayout {

    /** Functions per call depth: direct calls share callees and indirect calls have several targets. */
    static final int POOL_BITS = 2;
    static final int POOL = 1 << POOL_BITS;
    static final int MAIN_BLOCK = 4;

    final int depth;
    final int fanout;
    final long mainTop;
    final long mainCall;
    final long mainBack;
    final long[] entry;
    final long[] ret;
    final int[] block;
    final long[] guard;
    final long[] call;
    final int[] callEighths;
    final boolean[] indirect;
    final int[] directCallee;
    /** Bytes from the base to the end of the code. */
    final long extent;

    CallTreeLayout(SplittableRandom rnd, int depth, int fanout, long base) {
        this.depth = depth;
        this.fanout = fanout;
        int functions = depth * POOL;
        int slots = functions * fanout;
        entry = new long[functions];
        ret = new long[functions];
        block = new int[functions];
        guard = new long[slots];
        call = new long[slots];
        callEighths = new int[slots];
        indirect = new boolean[slots];
        directCallee = new int[slots];
        for (int f = 0; f < functions; f++) {
            block[f] = 1 + rnd.nextInt(8);
            for (int j = 0; j < fanout; j++) {
                int s = f * fanout + j;
                callEighths[s] = 4 + rnd.nextInt(4);
                indirect[s] = rnd.nextInt(4) == 0;
                directCallee[s] = rnd.nextInt(POOL);
            }
        }
        long pos = 0;
        mainTop = base;
        pos += (long) Encoding.PLAIN * MAIN_BLOCK;
        mainCall = base + pos;
        pos += Encoding.CALL;
        mainBack = base + pos;
        pos += Encoding.JCC;
        for (int f = 0; f < functions; f++) {
            pos = (pos + Encoding.FUNCTION_ALIGN - 1) & -Encoding.FUNCTION_ALIGN;
            entry[f] = base + pos;
            long blockBytes = (long) Encoding.PLAIN * block[f];
            pos += blockBytes;
            if (levelOf(f) < depth) {
                for (int j = 0; j < fanout; j++) {
                    int s = f * fanout + j;
                    guard[s] = base + pos;
                    pos += Encoding.JCC;
                    call[s] = base + pos;
                    pos += Encoding.CALL + blockBytes;
                }
            }
            ret[f] = base + pos;
            pos += Encoding.RET;
        }
        extent = pos;
    }

    /**
     * The program's code: main (its block, the indirect call, the back edge, and the RET after the
     * loop, which the run never reaches), then each function as the class comment draws it.
     */
    ProgramImage image() {
        Assembler a = new Assembler(mainTop);
        a.function("main", mainTop).plain(mainTop, MAIN_BLOCK).indirectCall(mainCall).jcc(mainBack, mainTop)
                .ret(mainBack + Encoding.JCC);
        for (int f = 0; f < entry.length; f++) {
            a.function(name(f), entry[f]).plain(entry[f], block[f]);
            int level = levelOf(f);
            if (level < depth) {
                for (int j = 0; j < fanout; j++) {
                    int s = f * fanout + j;
                    a.jcc(guard[s], call[s] + Encoding.CALL);
                    if (indirect[s]) {
                        a.indirectCall(call[s]);
                    } else {
                        a.call(call[s], entry[level * POOL + directCallee[s]]);
                    }
                    a.plain(call[s] + Encoding.CALL, block[f]);
                }
            }
            a.ret(ret[f]);
        }
        return a.image(mainTop);
    }

    /** Function {@code f}'s symbol: f, its call depth, _, its index in that depth's pool. */
    static String name(int f) {
        return "f" + levelOf(f) + "_" + f % POOL;
    }

    /** The call depth (1..depth) function {@code f} runs at. */
    static int levelOf(int f) {
        return f / POOL + 1;
    }
}
