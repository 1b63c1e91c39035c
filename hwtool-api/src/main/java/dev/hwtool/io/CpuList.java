package dev.hwtool.io;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.TreeSet;

/**
 * The kernel's "cpulist" format, e.g. {@code 0-3,5,7-8}: comma-separated CPU numbers and
 * inclusive ranges, as printed by bitmap_print_to_pagebuf/{@code %*pbl} (lib/bitmap-str.c) into
 * /sys/devices/system/cpu/{online,possible,present,offline}. An empty list is an empty line.
 */
public final class CpuList {

    /** Where sysfs is mounted on a normal system. */
    public static final Path SYSFS = Path.of("/sys");

    /** Far above any kernel's NR_CPUS (at most 8192 on x86-64); bounds what a range can expand to. */
    public static final int MAX_CPU = 65535;

    private CpuList() {
    }

    /**
     * The CPUs in {@code text}, ascending and without duplicates. Surrounding whitespace (the
     * trailing newline of a sysfs file) is ignored.
     *
     * @throws IllegalArgumentException naming the text if it is not a cpulist
     */
    public static List<Integer> parse(String text) {
        String t = text.strip();
        TreeSet<Integer> cpus = new TreeSet<>();
        if (t.isEmpty()) {
            return List.of();
        }
        for (String item : t.split(",", -1)) {
            int dash = item.indexOf('-');
            if (dash < 0) {
                cpus.add(number(item, text));
            } else {
                int first = number(item.substring(0, dash), text);
                int last = number(item.substring(dash + 1), text);
                if (last < first) {
                    throw bad(text, "range " + item + " runs backwards");
                }
                for (int cpu = first; cpu <= last; cpu++) {
                    cpus.add(cpu);
                }
            }
        }
        return List.copyOf(cpus);
    }

    private static int number(String s, String text) {
        if (s.isEmpty() || s.length() > 6 || !digits(s)) {
            throw bad(text, "'" + s + "' is not a CPU number");
        }
        int cpu = Integer.parseInt(s);
        if (cpu > MAX_CPU) {
            throw bad(text, "CPU " + cpu + " is above " + MAX_CPU);
        }
        return cpu;
    }

    /**
     * Only ASCII digits. A loop, not chars().allMatch: a batch line parses this list in the
     * interpreter, where a stream pipeline costs many times the loop.
     */
    private static boolean digits(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
        }
        return true;
    }

    private static IllegalArgumentException bad(String text, String why) {
        return new IllegalArgumentException("not a cpulist: \"" + text.strip() + "\" (" + why + ")");
    }

    /** The inverse of {@link #parse}: ascending ranges, e.g. {@code [0,1,2,3,5]} → {@code 0-3,5}. */
    public static String format(Collection<Integer> cpus) {
        List<Integer> sorted = new ArrayList<>(new TreeSet<>(cpus));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < sorted.size(); ) {
            int first = sorted.get(i);
            int j = i;
            while (j + 1 < sorted.size() && sorted.get(j + 1) == sorted.get(j) + 1) {
                j++;
            }
            if (!sb.isEmpty()) {
                sb.append(',');
            }
            sb.append(first);
            if (j > i) {
                sb.append('-').append(sorted.get(j));
            }
            i = j + 1;
        }
        return sb.toString();
    }

    /** {@code <sysfsRoot>/devices/system/cpu/online}. */
    public static Path onlineFile(Path sysfsRoot) {
        return sysfsRoot.resolve("devices/system/cpu/online");
    }

    /**
     * The online CPUs, read from {@code <sysfsRoot>/devices/system/cpu/online}.
     *
     * @throws HwException {@link Cause#OS_ERROR} if the file cannot be read
     * @throws IllegalArgumentException if it does not hold a cpulist
     */
    public static List<Integer> online(Path sysfsRoot) {
        Path file = onlineFile(sysfsRoot);
        try {
            return parse(readSmall(file));
        } catch (IOException e) {
            throw new HwException(Cause.OS_ERROR, "cannot read " + file + ": " + reason(e, file),
                    "mount sysfs at /sys (mount -t sysfs sysfs /sys)", e);
        }
    }

    /**
     * A small file's text, through FileInputStream: every command reads the online list, and a
     * batch line runs it in the interpreter, where Files.readString's channel, buffer and
     * decoder layers cost about three times as much (80 against 30 us a read, -Xint here).
     * A cpulist is ASCII.
     */
    private static String readSmall(Path file) throws IOException {
        try (FileInputStream in = new FileInputStream(file.toString())) {
            return new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
        }
    }

    /**
     * The reason in the words the other readers use (BoundedText.reason). FileInputStream says
     * "PATH (reason)" for a file it cannot open, and the message names PATH already.
     */
    private static String reason(IOException e, Path file) {
        String m = String.valueOf(e.getMessage());
        String prefix = file + " (";
        if (m.startsWith(prefix) && m.endsWith(")")) {
            return BoundedText.reason(new IOException(m.substring(prefix.length(), m.length() - 1)));
        }
        return BoundedText.reason(e);
    }

    /** The online CPUs of this system, from /sys. */
    public static List<Integer> online() {
        return online(SYSFS);
    }
}
