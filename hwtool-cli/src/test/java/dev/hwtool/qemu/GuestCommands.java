package dev.hwtool.qemu;

import dev.hwtool.cli.Main;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The guest side of {@link CpuModelsIT} and {@link UnprivilegedGuestIT}: many hwtool command
 * lines in one JVM (under TCG a JVM start costs tens of seconds), each run through
 * {@link Main#run} as {@code hwtool batch} runs a line (a fresh parser and backend per line),
 * but with its own stdout, stderr and exit code, which a batch's shared stdout would mix:
 * {@code DIR/ID.out}, {@code ID.err}, {@code ID.rc}.
 *
 * <p>Usage: {@code GuestCommands DIR ID=WORD,WORD... ...}; the words are split on commas (no
 * command used here has a comma in an argument).
 */
public final class GuestCommands {

    private GuestCommands() {
    }

    /** One command line: its id (the files' name) and hwtool's arguments. */
    record Line(String id, List<String> args) {
        String encoded() {
            return id + "=" + String.join(",", args);
        }

        static Line decode(String word) {
            int eq = word.indexOf('=');
            return new Line(word.substring(0, eq), List.of(word.substring(eq + 1).split(",")));
        }
    }

    /** The java command line that runs {@code lines} in the guest, outputs under {@code dir}. */
    static String command(String dir, List<Line> lines) {
        return RealKernel.javaCommand(GuestCommands.class, arguments(dir, lines));
    }

    /**
     * sh lines that copy what this class needs to run (the jar and its own classes, nothing
     * else of the test classes) into {@code dir}, readable by every user: a checkout under a
     * directory others cannot enter (/root) is still runnable by an unprivileged guest user.
     */
    static String copyClassPath(String dir) {
        String pkg = GuestCommands.class.getPackageName().replace('.', '/');
        return "mkdir -p " + dir + "/" + pkg + " && cp " + RealKernel.JAR + " " + dir + "/hwtool.jar && cp "
                + RealKernel.TEST_CLASSES.resolve(pkg) + "/GuestCommands*.class " + dir + "/" + pkg + "/ && chmod -R a+rX " + dir
                + "\n";
    }

    /** {@link #command} on the copy {@link #copyClassPath} made in {@code classDir}. */
    static String command(String dir, List<Line> lines, String classDir) {
        return RealKernel.javaCommand(List.of(classDir + "/hwtool.jar", classDir), GuestCommands.class, arguments(dir, lines));
    }

    private static List<String> arguments(String dir, List<Line> lines) {
        List<String> args = new ArrayList<>(List.of(dir));
        lines.forEach(l -> args.add(l.encoded()));
        return args;
    }

    public static void main(String[] args) throws IOException {
        Path dir = Files.createDirectories(Path.of(args[0]));
        Map<String, Long> millis = new LinkedHashMap<>();
        for (int i = 1; i < args.length; i++) {
            Line line = Line.decode(args[i]);
            long start = System.nanoTime();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            // ISO-8859-1 keeps rdmsr -r's raw bytes; everything else hwtool prints here is ASCII.
            PrintWriter o = new PrintWriter(new OutputStreamWriter(out, StandardCharsets.ISO_8859_1));
            PrintWriter e = new PrintWriter(new OutputStreamWriter(err, StandardCharsets.UTF_8));
            int rc = Main.run("hwtool", line.args().toArray(String[]::new), o, e);
            o.flush();
            e.flush();
            Files.write(dir.resolve(line.id() + ".out"), out.toByteArray());
            Files.write(dir.resolve(line.id() + ".err"), err.toByteArray());
            Files.writeString(dir.resolve(line.id() + ".rc"), rc + "\n");
            millis.put(line.id(), (System.nanoTime() - start) / 1_000_000);
            System.out.println("HWTOOL-COMMAND +" + java.lang.management.ManagementFactory.getRuntimeMXBean().getUptime()
                    + "ms " + line.id() + " exit " + rc);
        }
        Files.writeString(dir.resolve("millis.txt"), millis.toString() + "\n");
    }
}
