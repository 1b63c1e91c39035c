package dev.hwtool.report;

import one.convert.Arguments;
import one.convert.CallStack;
import one.convert.FlameGraph;
import one.convert.Frame;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Folded stacks as an interactive, self-contained HTML flame graph (search, zoom, counts and
 * percentages on hover), rendered by async-profiler's converter ({@code one.convert.FlameGraph},
 * Apache-2.0): the page async-profiler itself writes, with a canvas drawn by its own script. Each
 * {@link FoldedStacks.Line} is one sample stack weighted by its count, outermost frame at the
 * bottom; the root frame is async-profiler's "all".
 *
 * <p>Two things the converter leaves to its caller: it prints the title into the page's
 * {@code <h1>} as it is, so it is escaped here as HTML text; and frame names go into a
 * single-quoted string of its {@code <script>}, where it escapes quotes and backslashes but not
 * an HTML tokenizer's "end of script" ({@code </}, HTML Living Standard 13.2.5.4 "script data
 * less-than sign state") nor a comment opener ({@code <!--}, 13.2.5.18), which a symbol name
 * from an ELF file could contain: those are written with a space after the {@code <}.
 */
public final class FlameGraphHtml {

    private FlameGraphHtml() {
    }

    /**
     * The page.
     *
     * @param stacks the stacks, as {@code --folded} writes them
     * @param title  the heading: what was recorded (plain text)
     */
    public static String render(FoldedStacks stacks, String title) {
        Arguments args = new Arguments();
        args.title = htmlText(title);
        FlameGraph graph = new FlameGraph(args);
        CallStack stack = new CallStack();
        for (FoldedStacks.Line line : stacks.lines()) {
            for (String frame : line.frames()) {
                // native code: the converter's type for C/C++/assembly frames (its palette's red)
                stack.push(scriptSafe(frame), Frame.TYPE_NATIVE);
            }
            graph.addSample(stack, line.count());
            stack.clear();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, false, StandardCharsets.UTF_8)) {
            graph.dump(out);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }

    /** {@code s} as HTML text: the five characters the HTML Living Standard's escaping algorithm (13.3) replaces. */
    static String htmlText(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '&' -> b.append("&amp;");
                case '<' -> b.append("&lt;");
                case '>' -> b.append("&gt;");
                case '"' -> b.append("&quot;");
                case '\'' -> b.append("&#39;");
                case '\n', '\r' -> b.append(' ');
                default -> b.append(c);
            }
        }
        return b.toString();
    }

    /** A frame name that cannot end or comment out the page's script (see the class comment). */
    static String scriptSafe(String name) {
        return name.replace("</", "< /").replace("<!--", "< !--");
    }
}
