package dev.hwtool.report;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Call stacks with counts, in Brendan Gregg's folded format (the input of flamegraph.pl, as
 * stackcollapse-perf.pl writes it): one line per distinct stack, frames outermost first joined
 * by ';', a space, the count; lines sorted. Built as a tree of frames so that a trace of
 * millions of branches costs one map lookup per stack change, not one string per branch.
 * {@link CallStackFolder} and {@link TraceFolder} fill it.
 */
public final class FoldedStacks {

    /** One frame: a node of the tree, its path from the root being a stack. */
    static final class Frame {
        final Frame parent;
        final String name;
        final Map<String, Frame> children = new HashMap<>();
        long count;

        Frame(Frame parent, String name) {
            this.parent = parent;
            this.name = name;
        }

        Frame child(String name) {
            return children.computeIfAbsent(name, n -> new Frame(this, n));
        }

        boolean root() {
            return parent == null;
        }
    }

    /** One line of the output. */
    public record Line(List<String> frames, long count) {
        public Line {
            frames = List.copyOf(frames);
        }

        public String stack() {
            return String.join(";", frames);
        }
    }

    final Frame root = new Frame(null, null);

    /** The frame reached from the root by {@code names}, outermost first. */
    Frame path(List<String> names) {
        Frame f = root;
        for (String n : names) {
            f = f.child(n);
        }
        return f;
    }

    /** Every counted stack, sorted by its folded text. */
    public List<Line> lines() {
        List<Line> out = new ArrayList<>();
        collect(root, new ArrayList<>(), out);
        out.sort((a, b) -> a.stack().compareTo(b.stack()));
        return out;
    }

    private static void collect(Frame f, List<String> path, List<Line> out) {
        if (!f.root()) {
            path.add(f.name);
            if (f.count > 0) {
                out.add(new Line(path, f.count));
            }
        }
        for (Frame c : f.children.values()) {
            collect(c, path, out);
        }
        if (!f.root()) {
            path.removeLast();
        }
    }

    /** The folded file: "outer;inner;leaf COUNT" lines. */
    public String text() {
        StringBuilder b = new StringBuilder();
        for (Line l : lines()) {
            b.append(l.stack()).append(' ').append(l.count()).append('\n');
        }
        return b.toString();
    }

    /** The sum of every line's count. */
    public long total() {
        long n = 0;
        for (Line l : lines()) {
            n += l.count();
        }
        return n;
    }

    /**
     * A frame name safe for the format: ';' separates frames and a newline ends a line, so neither
     * may appear in a name; ' ' may, since the count is after the last space.
     */
    static String frameName(String name) {
        return name.replace(';', ':').replace('\n', ' ').replace('\r', ' ');
    }
}
