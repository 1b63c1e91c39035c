package dev.hwtool.record;

import dev.hwtool.record.RecordingInfo;
import dev.hwtool.io.CpuList;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * This host as perf record describes it in a perf.data header, read where perf reads it
 * (tools/perf/util/header.c): uname's machine (HEADER_ARCH, here /proc/sys/kernel/arch), the
 * present and online CPUs from sysfs (HEADER_NRCPUS: cpu__max_present_cpu, _SC_NPROCESSORS_ONLN),
 * /proc/cpuinfo's "model name" (HEADER_CPUDESC) and its vendor_id, cpu family, model and stepping,
 * which the kernel computes as perf's get_cpuid does (HEADER_CPUID), and MemTotal of
 * /proc/meminfo (HEADER_TOTAL_MEM). Empty when /proc/cpuinfo lacks the x86 lines.
 */
final class HostMachine {

    private static final Pattern PRESENT_LAST = Pattern.compile("(\\d+)\\s*$");

    private HostMachine() {
    }

    static Optional<RecordingInfo.Machine> read() {
        try {
            String cpuinfo = Files.readString(Path.of("/proc/cpuinfo"));
            Optional<String> vendor = field(cpuinfo, "vendor_id");
            Optional<String> family = field(cpuinfo, "cpu family");
            Optional<String> model = field(cpuinfo, "model");
            Optional<String> stepping = field(cpuinfo, "stepping");
            if (vendor.isEmpty() || family.isEmpty() || model.isEmpty() || stepping.isEmpty()) {
                return Optional.empty();
            }
            String cpuid = vendor.get() + "," + family.get() + "," + model.get() + "," + stepping.get();
            String desc = RecordingInfo.Machine.squash(field(cpuinfo, "model name").orElse(""));
            List<Integer> online = CpuList.online();
            int available = present().orElse(online.getLast() + 1);
            return Optional.of(new RecordingInfo.Machine(arch(), Math.max(available, online.size()), online.size(),
                    desc, cpuid, memTotalKib()));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    /** The first "NAME\t: value" line's value. */
    static Optional<String> field(String cpuinfo, String name) {
        Matcher m = Pattern.compile("(?m)^" + Pattern.quote(name) + "\\s*: ?(.*)$").matcher(cpuinfo);
        return m.find() ? Optional.of(m.group(1).strip()) : Optional.empty();
    }

    private static String arch() {
        try {
            return Files.readString(Path.of("/proc/sys/kernel/arch")).strip();
        } catch (IOException e) {
            String a = System.getProperty("os.arch");
            return "amd64".equals(a) ? "x86_64" : a;
        }
    }

    private static Optional<Integer> present() {
        try {
            Matcher m = PRESENT_LAST.matcher(Files.readString(Path.of("/sys/devices/system/cpu/present")).strip());
            return m.find() ? Optional.of(Integer.parseInt(m.group(1)) + 1) : Optional.empty();
        } catch (IOException | NumberFormatException e) {
            return Optional.empty();
        }
    }

    private static long memTotalKib() {
        try {
            return field(Files.readString(Path.of("/proc/meminfo")), "MemTotal")
                    .map(v -> Long.parseLong(v.replace("kB", "").strip())).orElse(0L);
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
