package dev.hwtool.sim.workload;

import dev.hwtool.api.BranchType;
import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The program a branch trace implies: at each source address the instruction its branches were
 * retired as, the rest NOPs. So every branch the trace retires decodes, from the image, as the
 * kind it was retired as, and a direct branch's rel32 reaches its target:
 * <pre>
 *   jcc       0F 85 rel32   jne          (6 bytes)     call      E8 rel32    call rel32  (5)
 *   jmp       E9 rel32      jmp rel32    (5)           ind-call  FF D0       call rax    (2)
 *   ind-jmp   FF E0         jmp rax      (2)           ret       C3          ret         (1)
 *   far       0F 05         syscall      (2)           int       CD 80       int 0x80    (2)
 *   between   90            nop
 * </pre>
 * The image covers every source and target; functions start at the image's start ({@code main})
 * and at every call target ({@code fn_ADDR}), each running to the next. A trace that no program
 * can be is BAD_INPUT naming why: one address retired as two kinds, a direct branch with two
 * targets, two sources closer than the first one's instruction, or addresses more than
 * {@link #MAX_SPAN} bytes apart (user and kernel code in one trace).
 */
final class TraceLayout {

    /** The most bytes one trace's image spans. */
    static final long MAX_SPAN = 16L << 20;
    /** The most functions (distinct call targets) one trace's image names. */
    static final int MAX_FUNCTIONS = 1 << 20;
    private static final byte NOP = (byte) 0x90;

    private record Site(BranchType type, long target) {
    }

    private final String source;
    private final Map<Long, Site> sites = new TreeMap<>(Long::compareUnsigned);
    private final java.util.Set<Long> callTargets = new java.util.HashSet<>();
    /** Why no program can retire the trace, the first reason found; the rest of the trace is then only read. */
    private String problem;
    private boolean covered;
    private long lo;
    private long hi;

    private TraceLayout(String source) {
        this.source = source;
    }

    /** The image of {@code trace}, a regular file read once more. */
    static ProgramImage image(TraceWorkload trace) {
        TraceLayout t = new TraceLayout(trace.file().toString());
        trace.run(t.collector());
        if (t.problem != null) {
            throw t.bad(t.problem);
        }
        return t.assemble();
    }

    private Retirement collector() {
        return new Retirement() {
            @Override
            public void branch(long from, long to, BranchType type, int cpl, boolean mispredicted) {
                if (problem == null) {
                    problem = add(from, to, type);
                }
            }

            @Override
            public void instructions(long count, int cpl) {
            }

            @Override
            public void cycles(long count) {
            }
        };
    }

    /** Takes in one retired branch; returns why no program can retire it, or null. */
    private String add(long from, long to, BranchType type) {
        Site old = sites.get(from);
        String why = null;
        if (old == null) {
            sites.put(from, new Site(type, to));
            why = cover(from, from + length(type));
        } else if (old.type != type) {
            return hex(from) + " is retired as both " + old.type.scriptName() + " and " + type.scriptName();
        } else if (direct(type) && old.target != to) {
            return "the direct " + type.scriptName() + " at " + hex(from) + " has two targets, " + hex(old.target)
                    + " and " + hex(to);
        }
        if (why == null) {
            why = cover(to, to + 1);
        }
        if (why == null && type.isCall() && callTargets.add(to) && callTargets.size() > MAX_FUNCTIONS) {
            why = "it calls more than " + MAX_FUNCTIONS + " different addresses";
        }
        return why;
    }

    private String cover(long start, long end) {
        if (Long.compareUnsigned(end, start) < 0) {
            return "the instruction at " + hex(start) + " would run past the end of the address space";
        }
        if (!covered) {
            covered = true;
            lo = start;
            hi = end;
        } else {
            lo = Long.compareUnsigned(start, lo) < 0 ? start : lo;
            hi = Long.compareUnsigned(end, hi) > 0 ? end : hi;
        }
        if (Long.compareUnsigned(hi - lo, MAX_SPAN) > 0) {
            return "its addresses span more than " + MAX_SPAN + " bytes (" + hex(lo) + " to " + hex(hi)
                    + "): one program image holds at most that";
        }
        return null;
    }

    private ProgramImage assemble() {
        if (sites.isEmpty()) {
            throw bad("it retires no branch");
        }
        Assembler a = new Assembler(lo, NOP);
        long end = lo;
        BranchType before = null;
        for (Map.Entry<Long, Site> e : sites.entrySet()) {
            long from = e.getKey();
            if (Long.compareUnsigned(from, end) < 0) {
                throw bad("the " + before.scriptName() + " at " + hex(end - length(before)) + " is "
                        + length(before) + " bytes long, so no branch can start at " + hex(from));
            }
            a.padTo(from);
            Site s = e.getValue();
            long next = from + length(s.type);
            if (direct(s.type) && s.target - next != (int) (s.target - next)) {
                throw bad("the " + s.type.scriptName() + " at " + hex(from) + " cannot reach " + hex(s.target));
            }
            switch (s.type) {
                case JCC -> a.jcc(from, s.target);
                case NEAR_REL_CALL -> a.call(from, s.target);
                case NEAR_REL_JMP -> a.jmp(from, s.target);
                case NEAR_IND_CALL -> a.callRegister(from);
                case NEAR_IND_JMP -> a.jmpRegister(from);
                case NEAR_RET -> a.ret(from);
                case FAR -> a.syscall(from);
                case INTERRUPT -> a.interrupt(from);
            }
            end = next;
            before = s.type;
        }
        a.padTo(hi);
        return a.image(lo, functions());
    }

    /** main at the start, then one function per call target inside the image, each up to the next. */
    private List<ProgramImage.Function> functions() {
        TreeMap<Long, String> starts = new TreeMap<>(Long::compareUnsigned);
        for (long t : callTargets) {
            starts.put(t, "fn_" + Long.toHexString(t));
        }
        starts.putIfAbsent(lo, "main");
        List<ProgramImage.Function> out = new ArrayList<>();
        List<Map.Entry<Long, String>> list = new ArrayList<>(starts.entrySet());
        for (int i = 0; i < list.size(); i++) {
            long start = list.get(i).getKey();
            long next = i + 1 < list.size() ? list.get(i + 1).getKey() : hi;
            out.add(new ProgramImage.Function(list.get(i).getValue(), start, next - start));
        }
        return out;
    }

    static int length(BranchType type) {
        return switch (type) {
            case JCC -> Encoding.JCC;
            case NEAR_REL_CALL -> Encoding.CALL;
            case NEAR_REL_JMP -> Encoding.JMP;
            case NEAR_IND_CALL, NEAR_IND_JMP, FAR, INTERRUPT -> 2;
            case NEAR_RET -> Encoding.RET;
        };
    }

    private static boolean direct(BranchType type) {
        return type == BranchType.JCC || type == BranchType.NEAR_REL_CALL || type == BranchType.NEAR_REL_JMP;
    }

    private static String hex(long a) {
        return "0x" + Long.toHexString(a);
    }

    private HwException bad(String why) {
        return new HwException(Cause.BAD_INPUT, "trace " + source + ": no program can retire it: " + why);
    }
}
