package dev.hwtool.cli;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.Rectangle;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.logging.LogEntry;
import org.openqa.selenium.logging.LogType;
import org.openqa.selenium.logging.LoggingPreferences;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

import javax.imageio.ImageIO;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.logging.Level;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code --flamegraph} end to end: a simulated call-stack recording of a workload with a known
 * call tree, its page checked against the folded stacks and the tree, then opened in headless
 * Chromium (Debian's chromium through its chromedriver, driven by Selenium; nothing is
 * downloaded) to check what a user sees: no script errors, the root and the deepest function
 * drawn where the stacks put them, search highlighting a function and reporting its share, a
 * click zooming into a frame. The page is async-profiler's: frames are drawn on a canvas, so
 * "drawn" is read from a screenshot's pixels and a frame's name from the status line its
 * script shows under the mouse.
 */
class FlameGraphBrowserTest {

    static final String CHROMIUM = "/usr/bin/chromium";
    static final String CHROMEDRIVER = "/usr/bin/chromedriver";
    static final String CALLTREE = "calltree seed=1 depth=4 calls=5000";
    /** A frame row's height on the canvas (the page's script draws each level 16 px apart, 15 px high). */
    static final int ROW = 16;

    static ChromeDriverService service;
    static ChromeDriver driver;
    static Path profile;

    @TempDir
    Path dir;

    @BeforeAll
    static void browser() throws IOException {
        Require.that(Files.isExecutable(Path.of(CHROMIUM)), CHROMIUM + " is not installed (apt-get install chromium)");
        Require.that(Files.isExecutable(Path.of(CHROMEDRIVER)),
                CHROMEDRIVER + " is not installed (apt-get install chromium-driver)");
        // The driver and the browser are named, so Selenium Manager (which would download them) is
        // never asked: DriverFinder takes the service's executable and the options' binary as given.
        System.setProperty("webdriver.chrome.driver", CHROMEDRIVER);
        service = new ChromeDriverService.Builder().usingDriverExecutable(new File(CHROMEDRIVER)).usingAnyFreePort()
                .build();
        profile = Files.createTempDirectory("hwtool-chromium");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM);
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--user-data-dir=" + profile, "--window-size=1200,400", "--force-device-scale-factor=1");
        LoggingPreferences logs = new LoggingPreferences();
        logs.enable(LogType.BROWSER, Level.ALL);
        options.setCapability("goog:loggingPrefs", logs);
        driver = new ChromeDriver(service, options);
        driver.manage().window().setSize(new Dimension(1200, 400));
    }

    @AfterAll
    static void close() throws IOException {
        if (driver != null) {
            driver.quit();
        }
        if (service != null) {
            service.stop();
        }
        if (profile != null) {
            try (var files = Files.walk(profile)) {
                files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** A frame as the page must draw it: its level (0: the root) and its extent in samples. */
    record Frame(String name, int level, long left, long width) {
    }

    /**
     * The frames of folded stacks laid out as async-profiler lays them (FlameGraph.printFrame):
     * a frame's own samples first, then its children in the order of their names.
     */
    static List<Frame> layout(List<String> folded) {
        Node root = new Node("all");
        for (String line : folded) {
            int space = line.lastIndexOf(' ');
            long count = Long.parseLong(line.substring(space + 1));
            Node n = root;
            n.total += count;
            for (String f : line.substring(0, space).split(";")) {
                n = n.children.computeIfAbsent(f, Node::new);
                n.total += count;
            }
            n.self += count;
        }
        List<Frame> out = new ArrayList<>();
        place(root, 0, 0, out);
        return out;
    }

    static final class Node {
        final String name;
        final Map<String, Node> children = new TreeMap<>();
        long total;
        long self;

        Node(String name) {
            this.name = name;
        }
    }

    private static void place(Node n, int level, long x, List<Frame> out) {
        out.add(new Frame(n.name, level, x, n.total));
        x += n.self;
        for (Node c : n.children.values()) {
            place(c, level + 1, x, out);
            x += c.total;
        }
    }

    /** async-profiler's pct(): "100" for the whole, else two decimals rounded half up as Number.toFixed does. */
    static String pct(long a, long b) {
        return a >= b ? "100" : new BigDecimal(100.0 * a / b).setScale(2, RoundingMode.HALF_UP).toPlainString();
    }

    /** Functions the call tree enters at its greatest depth (call targets with that many calls open), by name. */
    static Set<String> deepestFunctions(String workload) {
        Deque<Long> stack = new ArrayDeque<>();
        Set<String> deepest = new HashSet<>();
        int max = 0;
        for (SimRecordingTest.Branch b : SimRecordingTest.truth(workload)) {
            if (b.type().isCall()) {
                stack.push(b.to());
                if (stack.size() > max) {
                    max = stack.size();
                    deepest.clear();
                }
                if (stack.size() == max) {
                    deepest.add(SimRecordingTest.function(workload, b.to()));
                }
            } else if (b.type().isReturn()) {
                stack.pop();
            }
        }
        return deepest;
    }

    Path record(String period, String workload) {
        Path file = dir.resolve("cs.data");
        Run rec = Run.of("lbr", "record", "--backend", "sim", "--profile", "skylake", "--filter", "call-stack", "-c",
                period, "-o", file.toString(), "--", workload);
        assertEquals(0, rec.exit(), rec.toString());
        return file;
    }

    @Test
    void aUserSeesTheCallTreeSearchesItAndZoomsIn() throws IOException {
        Path data = record("13", CALLTREE);
        Path folded = dir.resolve("cs.folded");
        Path html = dir.resolve("cs.html");
        Run rep = Run.of("lbr", "report", "--folded", folded.toString(), "--flamegraph", html.toString(),
                data.toString());
        assertEquals(0, rep.exit(), rep.toString());
        assertTrue(rep.err().contains("flame graph of "), rep.toString());
        List<String> lines = Files.readAllLines(folded);
        List<Frame> frames = layout(lines);
        Frame root = frames.getFirst();
        long samples = ((Number) SimRecordingTest.jsonLines(Run.of("lbr", "report", "--json", data.toString()).out())
                .getFirst().get("samples")).longValue();
        assertEquals(samples, root.width(), "every sample is one stack");

        // the deepest frames are the functions the call tree enters deepest
        int depth = frames.stream().mapToInt(Frame::level).max().orElseThrow();
        assertEquals(5, depth, "main's call site and 4 calls");
        Set<String> truthDeepest = deepestFunctions(CALLTREE);
        Frame deepest = frames.stream().filter(f -> f.level() == depth)
                .max(java.util.Comparator.comparingLong(Frame::width)).orElseThrow();
        assertTrue(truthDeepest.contains(deepest.name()), deepest + " not in " + truthDeepest);

        assertEquals(Files.readString(folded), FlameGraphReportTest.stacksOf(html), "the page's stacks are --folded's");
        String page = Files.readString(html);
        assertTrue(page.contains("<h1>SIMULATED (profile skylake), not this machine: " + CALLTREE
                + " · branches:u, filter call-stack, period 13 · " + samples + " samples</h1>"), page);

        driver.get(html.toUri().toString());
        assertNoScriptErrors();
        assertEquals(List.of(), driver.findElements(By.cssSelector("#match[style*='inline-block']")));
        WebElement canvas = driver.findElement(By.id("canvas"));
        Rectangle box = canvas.getRect();
        assertEquals((depth + 1) * ROW, box.getHeight(), "one row per level");
        double px = (double) box.getWidth() / root.width();

        BufferedImage shot = screenshot();
        assertTrue(shot.getHeight() >= box.getY() + box.getHeight() && shot.getWidth() >= box.getX() + box.getWidth(),
                "the whole canvas is in the window: " + box + " in " + shot.getWidth() + "x" + shot.getHeight());
        // the picture of README.md (docs/flamegraph.png): the page down to the canvas's root row
        Files.createDirectories(Path.of("target"));
        ImageIO.write(shot.getSubimage(0, 0, shot.getWidth(), box.getY() + box.getHeight() + 6), "png",
                Path.of("target", "flamegraph.png").toFile());

        // drawn: the root across the whole width, the deepest function where its stacks put it
        assertDrawn(shot, box, root, px);
        assertDrawn(shot, box, deepest, px);
        assertEquals("Function: all\n(" + String.format(java.util.Locale.ROOT, "%,d", samples) + " samples, 100%)", hover(canvas, box, root, px));
        assertEquals("Function: " + deepest.name() + "\n(" + plural(deepest.width()) + ", "
                + pct(deepest.width(), root.width()) + "%)", hover(canvas, box, deepest, px));

        // search: the page's prompt, then every frame of that name purple, and its share of all samples
        driver.findElement(By.id("search")).click();
        Alert prompt = new WebDriverWait(driver, Duration.ofSeconds(10)).until(ExpectedConditions.alertIsPresent());
        prompt.sendKeys(deepest.name());
        prompt.accept();
        WebElement match = driver.findElement(By.id("match"));
        assertTrue(match.isDisplayed());
        long containing = lines.stream().filter(l -> List.of(l.substring(0, l.lastIndexOf(' ')).split(";"))
                .contains(deepest.name())).mapToLong(l -> Long.parseLong(l.substring(l.lastIndexOf(' ') + 1))).sum();
        assertEquals(pct(containing, root.width()) + "%", driver.findElement(By.id("matchval")).getText());
        BufferedImage searched = screenshot();
        assertEquals(0xee00ee, pixel(searched, box, deepest, px), "a match is drawn purple");
        assertNotEquals(0xee00ee, pixel(searched, box, root, px), "the root does not match");
        driver.findElement(By.id("reset")).click();
        assertFalse(match.isDisplayed());

        // zoom: clicking a frame that is not the whole width makes it the whole width
        Frame part = frames.stream().filter(f -> f.level() >= 1 && f.width() < root.width() && f.width() * px > 40)
                .max(java.util.Comparator.comparingLong(Frame::width)).orElseThrow();
        int rightEnd = box.getWidth() - 3 - box.getWidth() / 2;
        int leftEnd = 2 - box.getWidth() / 2;
        assertFalse(hoverAt(canvas, rightEnd, offsetY(box, part)).startsWith("Function: " + part.name() + "\n")
                && hoverAt(canvas, leftEnd, offsetY(box, part)).startsWith("Function: " + part.name() + "\n"),
                part + " does not span the canvas before the click");
        new Actions(driver).moveToElement(canvas, offsetX(box, part, px), offsetY(box, part)).click().perform();
        assertNoScriptErrors();
        // after the zoom the frame spans the canvas: its row's right end is now it
        String right = hoverAt(canvas, rightEnd, offsetY(box, part));
        assertTrue(right.startsWith("Function: " + part.name() + "\n(" + plural(part.width()) + ", "), right
                + " at the right end after zooming into " + part);
        String left = hoverAt(canvas, leftEnd, offsetY(box, part));
        assertTrue(left.startsWith("Function: " + part.name() + "\n"), left);
        assertNoScriptErrors();
    }

    @Test
    void anEmptyRecordingIsAnEmptyPageThatSaysSo() throws IOException {
        Path data = record("1000000", "calltree calls=10");
        Path html = dir.resolve("empty.html");
        Run rep = Run.of("lbr", "report", "--flamegraph", html.toString(), data.toString());
        assertEquals(0, rep.exit(), rep.toString());
        driver.get(html.toUri().toString());
        assertNoScriptErrors();
        String title = driver.findElement(By.tagName("h1")).getText();
        assertTrue(title.startsWith("SIMULATED (profile skylake)"), title);
        assertTrue(title.endsWith("0 samples · nothing to draw: no sample in the recording (record with a smaller"
                + " period, -c N, or a longer workload)"), title);
        assertEquals(ROW, driver.findElement(By.id("canvas")).getRect().getHeight(), "the root's row only");
    }

    /** The check itself: a page that throws is caught by the browser log. */
    @Test
    void aScriptErrorIsSeen() {
        driver.get("data:text/html,<script>null.x</script>");
        List<LogEntry> severe = severe();
        assertEquals(1, severe.size(), severe.toString());
    }

    static String plural(long n) {
        return n == 1 ? "1 sample" : String.format(java.util.Locale.ROOT, "%,d", n) + " samples";
    }

    private static List<LogEntry> severe() {
        return driver.manage().logs().get(LogType.BROWSER).getAll().stream()
                .filter(e -> e.getLevel().intValue() >= Level.SEVERE.intValue()).toList();
    }

    private static void assertNoScriptErrors() {
        List<LogEntry> severe = severe();
        assertEquals(List.of(), severe, "script errors");
    }

    private static BufferedImage screenshot() throws IOException {
        return ImageIO.read(new ByteArrayInputStream(driver.getScreenshotAs(OutputType.BYTES)));
    }

    /** Canvas x of a point inside the frame: near its left end, clear of the label drawn from 3 px in. */
    private static int frameX(Frame f, double px) {
        return (int) Math.ceil(f.left() * px) + Math.min(2, Math.max(0, (int) (f.width() * px) / 2));
    }

    /** Canvas y of the top pixel row of a frame (flame graph: level 0 at the bottom). */
    private static int frameTop(Rectangle box, Frame f) {
        return box.getHeight() - (f.level() + 1) * ROW;
    }

    /** The frame's colour near its top left corner, where no label is drawn. */
    private static int pixel(BufferedImage shot, Rectangle box, Frame f, double px) {
        return shot.getRGB(box.getX() + frameX(f, px), box.getY() + frameTop(box, f) + 1) & 0xffffff;
    }

    private static void assertDrawn(BufferedImage shot, Rectangle box, Frame f, double px) {
        int rgb = pixel(shot, box, f, px);
        assertNotEquals(0xffffff, rgb, f + " is drawn");
        // the palette's colours (#b2e1b2 ... #e17d00 plus at most 0x30 per channel) are never grey
        int r = rgb >> 16, g = (rgb >> 8) & 0xff, b = rgb & 0xff;
        assertFalse(r == g && g == b, f + " is a coloured frame, not " + Integer.toHexString(rgb));
    }

    private static int offsetX(Rectangle box, Frame f, double px) {
        return (int) Math.round((f.left() + f.width() / 2.0) * px) - box.getWidth() / 2;
    }

    private static int offsetY(Rectangle box, Frame f) {
        return frameTop(box, f) + ROW / 2 - box.getHeight() / 2;
    }

    private static String hover(WebElement canvas, Rectangle box, Frame f, double px) {
        return hoverAt(canvas, offsetX(box, f, px), offsetY(box, f));
    }

    /** The status line the page shows with the mouse at an offset from the canvas's centre. */
    private static String hoverAt(WebElement canvas, int dx, int dy) {
        new Actions(driver).moveToElement(canvas, dx, dy).perform();
        WebElement status = driver.findElement(By.id("status"));
        return status.isDisplayed() ? status.getDomProperty("textContent") : "";
    }
}
