package dev.hwtool.linux.sys;

import dev.hwtool.caps.LinuxFacts.AllowWrites;
import dev.hwtool.caps.LinuxFacts.Lockdown;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Pure parsers for the text formats of the kernel files {@link LinuxProbe} reads. No I/O: each
 * takes the file's text and returns the value, or throws {@link IllegalArgumentException} naming
 * what was wrong, which the probe records as a malformed fact.
 */
public final class LinuxParsers {

    private LinuxParsers() {
    }

    /**
     * A cpulist as in /sys/devices/system/cpu/online: "0-3,5,7-8" (lib/bitmap.c bitmap_print_to_pagebuf).
     * An empty file means no CPUs.
     */
    public static List<Integer> cpuList(String text) {
        String t = text.strip();
        List<Integer> cpus = new ArrayList<>();
        if (t.isEmpty()) {
            return cpus;
        }
        for (String part : t.split(",")) {
            String p = part.strip();
            int dash = p.indexOf('-');
            try {
                if (dash < 0) {
                    cpus.add(Integer.parseInt(p));
                } else {
                    int lo = Integer.parseInt(p.substring(0, dash));
                    int hi = Integer.parseInt(p.substring(dash + 1));
                    if (hi < lo) {
                        throw new IllegalArgumentException("descending CPU range " + p);
                    }
                    for (int c = lo; c <= hi; c++) {
                        cpus.add(c);
                    }
                }
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("not a CPU list: " + t);
            }
        }
        return cpus;
    }

    /** The value of a "Name:\tvalue" line of /proc/PID/status (fs/proc/array.c), trimmed. */
    public static Optional<String> statusField(String status, String name) {
        String prefix = name + ":";
        return status.lines().filter(l -> l.startsWith(prefix)).findFirst()
                .map(l -> l.substring(prefix.length()).strip());
    }

    /** CapEff from /proc/self/status: 16 hex digits (render_cap_t). */
    public static long capEff(String status) {
        String hex = statusField(status, "CapEff")
                .orElseThrow(() -> new IllegalArgumentException("no CapEff line"));
        try {
            return Long.parseUnsignedLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("CapEff is not hex: " + hex);
        }
    }

    /** The effective uid: the second of the four numbers on the Uid: line (real, effective, saved, fs). */
    public static int euid(String status) {
        String[] ids = statusField(status, "Uid")
                .orElseThrow(() -> new IllegalArgumentException("no Uid line")).split("\\s+");
        if (ids.length < 2) {
            throw new IllegalArgumentException("Uid line has " + ids.length + " fields");
        }
        return integer(ids[1]);
    }

    /**
     * The Seccomp: mode (0 disabled, 1 strict, 2 filter), as fs/proc/array.c task_seccomp prints
     * it (Documentation/userspace-api/seccomp_filter.rst).
     */
    public static int seccomp(String status) {
        return integer(statusField(status, "Seccomp")
                .orElseThrow(() -> new IllegalArgumentException("no Seccomp line")));
    }

    /**
     * The Seccomp_filters: count, the filters attached to this task (task_seccomp, Linux 5.9+,
     * CONFIG_SECCOMP_FILTER); absent from older kernels' status.
     */
    public static int seccompFilters(String status) {
        return integer(statusField(status, "Seccomp_filters")
                .orElseThrow(() -> new IllegalArgumentException("no Seccomp_filters line")));
    }

    /**
     * Whether /proc/self/uid_map is the initial user namespace's identity map "0 0 4294967295"
     * (Documentation/admin-guide/namespaces; user_namespaces(7)).
     */
    public static boolean initialUserNamespace(String uidMap) {
        List<String> lines = uidMap.lines().map(String::strip).filter(l -> !l.isEmpty()).toList();
        if (lines.isEmpty()) {
            throw new IllegalArgumentException("empty uid_map");
        }
        if (lines.size() != 1) {
            return false;
        }
        String[] f = lines.getFirst().split("\\s+");
        if (f.length != 3) {
            throw new IllegalArgumentException("uid_map line is not 'inside outside count': " + lines.getFirst());
        }
        return f[0].equals("0") && f[1].equals("0") && f[2].equals("4294967295");
    }

    /** /sys/kernel/security/lockdown: "none [integrity] confidentiality" → the bracketed level. */
    public static Lockdown lockdown(String text) {
        Matcher m = Pattern.compile("\\[(\\w+)]").matcher(text);
        if (!m.find()) {
            throw new IllegalArgumentException("no bracketed lockdown level in: " + text.strip());
        }
        try {
            return Lockdown.valueOf(m.group(1).toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("unknown lockdown level " + m.group(1));
        }
    }

    /** /sys/module/msr/parameters/allow_writes: "on", "off" or "default" (msr.c get_allow_writes). */
    public static AllowWrites allowWrites(String text) {
        String t = text.strip();
        return switch (t) {
            case "on" -> AllowWrites.ON;
            case "off" -> AllowWrites.OFF;
            case "default" -> AllowWrites.DEFAULT;
            default -> throw new IllegalArgumentException("unknown allow_writes value " + t);
        };
    }

    /** A single decimal integer, as in the sysctl and sysfs attribute files. */
    public static int integer(String text) {
        String t = text.strip();
        try {
            return Integer.parseInt(t);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("not an integer: " + t);
        }
    }

    /**
     * The wanted options of a kernel .config: "CONFIG_X=y" → "y", "# CONFIG_X is not set" → "n",
     * quoted strings unquoted.
     */
    public static Map<String, String> kernelConfig(String text, Set<String> wanted) {
        // A kernel's .config has thousands of lines and a verdict wants a handful: each line is
        // matched by prefix and position, without a regex or a copy of the text per line.
        Map<String, String> out = new LinkedHashMap<>();
        int n = text.length();
        for (int start = 0; start < n; ) {
            int nl = text.indexOf('\n', start);
            int end = nl < 0 ? n : nl;
            String line = text.substring(start, end).strip();
            start = end + 1;
            if (line.startsWith("# CONFIG_") && line.endsWith(" is not set")) {
                String name = line.substring(2, line.length() - " is not set".length());
                if (wanted.contains(name) && isSymbol(name)) {
                    out.put(name, "n");
                }
                continue;
            }
            int eq = line.indexOf('=');
            if (line.startsWith("CONFIG_") && eq > 0) {
                String name = line.substring(0, eq);
                if (!wanted.contains(name)) {
                    continue;
                }
                String value = line.substring(eq + 1);
                if (value.length() >= 2 && value.startsWith("\"") && value.endsWith("\"")) {
                    value = value.substring(1, value.length() - 1);
                }
                out.put(name, value);
            }
        }
        return out;
    }

    /** CONFIG_ followed by word characters only ({@code \w+}), as the "is not set" comment names it. */
    private static boolean isSymbol(String name) {
        for (int i = "CONFIG_".length(); i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c == '_' || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) {
                return false;
            }
        }
        return name.length() > "CONFIG_".length();
    }

    /** Container markers in cgroup paths, most specific first (Kubernetes pods often run on docker). */
    private static final List<Map.Entry<String, String>> CGROUP_MARKERS = List.of(
            Map.entry("kubepods", "kubernetes"),
            Map.entry("libpod", "podman"),
            Map.entry("docker", "docker"),
            Map.entry("lxc.payload", "lxc"),
            Map.entry("/lxc/", "lxc"),
            Map.entry("containerd", "containerd"),
            Map.entry("systemd-nspawn", "systemd-nspawn"));

    /**
     * The container kind named by a /proc/PID/cgroup file ("hierarchy:controllers:path" lines),
     * or empty when no path carries a known marker (cgroup v2 namespaces show just "0::/").
     */
    public static Optional<String> containerFromCgroup(String cgroup) {
        for (Map.Entry<String, String> marker : CGROUP_MARKERS) {
            for (String line : cgroup.lines().toList()) {
                int second = line.indexOf(':', line.indexOf(':') + 1);
                String path = second < 0 ? line : line.substring(second + 1);
                if (path.contains(marker.getKey())) {
                    return Optional.of(marker.getValue());
                }
            }
        }
        return Optional.empty();
    }

    /** A variable of a NUL-separated environment block such as /proc/1/environ. */
    public static Optional<String> environVariable(String environ, String name) {
        String prefix = name + "=";
        for (String entry : environ.split("\0")) {
            if (entry.startsWith(prefix)) {
                return Optional.of(entry.substring(prefix.length()));
            }
        }
        return Optional.empty();
    }

    /** The files docker bind-mounts from its per-container directory (daemon/container_operations_unix.go). */
    private static final Pattern DOCKER_BIND = Pattern.compile(
            ".*/containers/(\\p{XDigit}{64})/(hostname|hosts|resolv\\.conf)");

    /**
     * A docker bind mount in /proc/self/mountinfo: /etc/hostname, /etc/hosts or /etc/resolv.conf
     * mounted from {@code <data-root>/containers/<64-hex id>/}, which dockerd sets up for every
     * container. Returns "MOUNTPOINT from containers/ID12" for the first one.
     * Fields (proc(5)): id, parent, major:minor, root, mount point, ...; octal escapes as \040.
     */
    public static Optional<String> dockerBindMount(String mountinfo) {
        for (String line : mountinfo.lines().toList()) {
            String[] f = line.split(" ");
            if (f.length < 5) {
                continue;
            }
            String root = unescapeOctal(f[3]);
            String mountPoint = unescapeOctal(f[4]);
            Matcher m = DOCKER_BIND.matcher(root);
            if (m.matches() && mountPoint.equals("/etc/" + m.group(2))) {
                return Optional.of(mountPoint + " from containers/" + m.group(1).substring(0, 12));
            }
        }
        return Optional.empty();
    }

    /** mountinfo's escapes: space, tab, newline and backslash as \ooo (fs/proc_namespace.c mangle). */
    static String unescapeOctal(String s) {
        if (s.indexOf('\\') < 0) {
            return s;
        }
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
