package dev.hwtool.report;

import one.convert.Arguments;
import one.convert.FlameGraph;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

class FlameGraphHtmlTest {

    static FoldedStacks stacks(Object... pathsAndCounts) {
        FoldedStacks s = new FoldedStacks();
        for (int i = 0; i < pathsAndCounts.length; i += 2) {
            s.path(List.of(((String) pathsAndCounts[i]).split(";"))).count += (Integer) pathsAndCounts[i + 1];
        }
        return s;
    }

    /** The page read back by the converter's own HTML parser, as collapsed stacks, sorted. */
    static String readBack(String html) throws IOException {
        Arguments args = new Arguments();
        args.output = "collapsed";
        FlameGraph g = new FlameGraph(args);
        g.parseHtml(new StringReader(html));
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        g.dump(new PrintStream(out, true, StandardCharsets.UTF_8));
        return out.toString(StandardCharsets.UTF_8).lines().sorted().map(l -> l + "\n").reduce("", String::concat);
    }

    @Test
    void thePageHoldsExactlyTheFoldedStacks() throws IOException {
        FoldedStacks s = stacks("main;f;g", 7, "main;f", 2, "main;h", 5, "main", 1, "0x401000;0x401080", 3);
        String html = FlameGraphHtml.render(s, "t");
        assertEquals(s.text(), readBack(html));
        assertTrue(html.startsWith("<!DOCTYPE html>"), html.substring(0, 40));
    }

    @Test
    void theTitleIsHtmlTextNotMarkup() {
        String html = FlameGraphHtml.render(stacks("a", 1), "SIMULATED: <b>x</b> & 'y'");
        assertTrue(html.contains("<h1>SIMULATED: &lt;b&gt;x&lt;/b&gt; &amp; &#39;y&#39;</h1>"), html);
    }

    @Test
    void aFrameNameCannotEndThePagesScript() throws IOException {
        FoldedStacks s = stacks("main;evil</script><script>alert(1)//", 4, "main;x<!--y", 1);
        String html = FlameGraphHtml.render(s, "t");
        assertEquals(count(FlameGraphHtml.render(stacks("main", 1), "t"), "</script"), count(html, "</script"),
                "only the page's own end tags");
        assertFalse(html.contains("<!--y"));
        assertEquals("main;evil< /script><script>alert(1)// 4\nmain;x< !--y 1\n", readBack(html));
    }

    private static int count(String s, String of) {
        return s.split(of, -1).length - 1;
    }

    @Test
    void noStacksIsAValidPageWithOnlyTheRoot() throws IOException {
        String html = FlameGraphHtml.render(new FoldedStacks(), "nothing to draw");
        assertTrue(html.contains("<h1>nothing to draw</h1>"));
        assertEquals("", readBack(html));
        assertTrue(html.trim().endsWith("</html>"));
    }
}
