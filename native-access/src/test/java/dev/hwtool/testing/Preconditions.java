package dev.hwtool.testing;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * The one place a test may decide not to run. Every module's tests go through it (the CLI's
 * {@code Require} and the recorder tests' {@code Tools} delegate here), so they agree on what
 * {@value #ENV} means.
 *
 * <p>Two kinds of precondition, deliberately separate:
 * <ul>
 *   <li>{@link #that}/{@link #tool}: something that can be installed or configured (a tool, a
 *   device node, root, a kernel header). Locally its absence skips the test with the reason;
 *   under {@value #ENV} (CI, set by {@code .ci/run}) it <em>fails</em> the test, so CI can never
 *   pass by skipping for a fixable reason.</li>
 *   <li>{@link #hostHas}/{@link #hostLacks}: hardware this host has or lacks, from the closed
 *   allow-list {@link Hardware}. These skip even in CI (a VM without a virtual PMU cannot grow
 *   LBR), but only when the helper's own probe of the host agrees, so a caller cannot use them
 *   to hide a missing tool.</li>
 * </ul>
 */
public final class Preconditions {

    /** The environment variable CI sets; see {@link #requireAll()}. */
    public static final String ENV = "HWTOOL_REQUIRE_ALL";

    private Preconditions() {
    }

    /**
     * Whether missing preconditions fail instead of skipping: {@value #ENV} is set to a non-empty
     * value other than {@code 0} ({@code 1}, {@code yes}, {@code true} all count; unset, empty and
     * {@code 0} do not).
     */
    public static boolean requireAll() {
        String v = System.getenv(ENV);
        return v != null && !v.isEmpty() && !v.equals("0");
    }

    /** Skips the test with {@code reason} unless {@code condition}; under {@value #ENV} fails instead. */
    public static void that(boolean condition, String reason) {
        if (condition) {
            return;
        }
        if (requireAll()) {
            Assertions.fail("required by " + ENV + "=" + System.getenv(ENV) + " but missing: " + reason);
        }
        Assumptions.abort(reason);
    }

    /** An executable at an absolute path, e.g. {@code /usr/bin/gcc}; the package is named after it unless given. */
    public static void tool(String path) {
        that(Files.isExecutable(Path.of(path)),
                path + " is not installed (apt-get install " + Path.of(path).getFileName() + ")");
    }

    /** An executable at an absolute path, provided by the Debian package {@code debianPackage}. */
    public static void tool(String path, String debianPackage) {
        that(Files.isExecutable(Path.of(path)), path + " is not installed (apt-get install " + debianPackage + ")");
    }

    /** The first executable {@code name} on PATH, or (skip/fail as {@link #that}) none. */
    public static Path onPath(String name, String debianPackage) {
        Optional<Path> found = findOnPath(name);
        that(found.isPresent(), name + " is not on PATH (apt-get install " + debianPackage + ")");
        return found.orElseThrow();
    }

    /** The first executable {@code name} on PATH, if any (no skip). */
    public static Optional<Path> findOnPath(String name) {
        String path = System.getenv().getOrDefault("PATH", "/usr/bin:/bin");
        return Arrays.stream(path.split(File.pathSeparator))
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /**
     * The host has {@code h}; otherwise the test skips, also in CI, with "this host lacks the
     * hardware: ...". {@code detail} says what the code under test found (e.g. the probe's
     * cause). If the caller's own finding ({@code callerFoundIt}) disagrees with the helper's probe
     * (the caller says unusable, the probe says present) the cause is fixable (a paranoid level, a
     * capability), so it is treated as {@link #that}: a skip locally, a failure in CI.
     */
    public static void hostHas(Hardware h, boolean callerFoundIt, String detail) {
        boolean present = h.present();
        if (callerFoundIt) {
            return;
        }
        if (present) {
            // The hardware is there but unusable (paranoid level, a capability, a busy PMU): fixable.
            that(false, h.description + " is present on this host (" + h.probe + ") but not usable: " + detail);
        }
        Assumptions.abort("this host lacks the hardware: " + h.description + " (" + h.probe + " absent); " + detail);
    }

    /** The host has {@code h} by the helper's own probe; otherwise the test skips, also in CI. */
    public static void hostHas(Hardware h) {
        if (!h.present()) {
            Assumptions.abort("this host lacks the hardware: " + h.description + " (" + h.probe + " absent)");
        }
    }

    /**
     * The host lacks {@code h} (the test checks the refusal without it); on a host with it the test
     * skips, also in CI: that host's real-path tests cover it.
     */
    public static void hostLacks(Hardware h) {
        if (h.present()) {
            Assumptions.abort("this host has the hardware: " + h.description + " (" + h.probe
                    + "); the real-path tests cover it");
        }
    }

    /**
     * The host's kernel has {@code k} loaded or built in, so a test of the refusal without it does
     * not apply: the test skips, also in CI (the QEMU tests boot kernels with and without it).
     * There is no {@code hostHas(Kernel)}: a driver a test needs is loadable, so use {@link #that}.
     */
    public static void hostLacks(Kernel k) {
        if (k.present()) {
            Assumptions.abort("this host's kernel has " + k.description + " (" + k.probe
                    + "); the QEMU tests cover the kernel without it");
        }
    }

    /** Kernel state a refusal-path test may find already present: the only kernel reasons to skip in CI. */
    public enum Kernel {
        /** The msr driver is built (arch/x86/kernel/msr.c, CONFIG_X86_MSR), as a module or built in. */
        MSR_DRIVER("the msr driver built (CONFIG_X86_MSR)", "/sys/module/msr or msr.ko under /lib/modules"),
        /** The msr driver is loaded: its node /dev/cpu/0/msr exists. */
        MSR_NODE("the msr driver loaded", "/dev/cpu/0/msr");

        private final String description;
        private final String probe;

        Kernel(String description, String probe) {
            this.description = description;
            this.probe = probe;
        }

        /** The helper's own probe of this host. */
        public boolean present() {
            return switch (this) {
                case MSR_NODE -> Files.exists(Path.of(probe));
                case MSR_DRIVER -> MSR_NODE.present() || Files.exists(Path.of("/sys/module/msr")) || moduleFile();
            };
        }

        private static boolean moduleFile() {
            Path dir = Path.of("/lib/modules", System.getProperty("os.version"), "kernel/arch/x86/kernel");
            try (var files = Files.list(dir)) {
                return files.anyMatch(f -> f.getFileName().toString().startsWith("msr.ko"));
            } catch (IOException e) {
                return false;
            }
        }
    }

    /**
     * The allow-list of reasons a test may skip in CI: hardware (or the hypervisor's choice of it)
     * that no package or setting on the host can provide. Each carries its own probe of the host.
     */
    public enum Hardware {
        /** A core PMU: the kernel's cpu (or hybrid cpu_core/cpu_atom) event source (arch/x86/events/core.c). */
        CORE_PMU("a core PMU", "/sys/bus/event_source/devices/cpu"),
        /**
         * LBR through perf: a core PMU that reports a branch-stack depth above 0 in caps/branches
         * (arch/x86/events/core.c, x86_pmu_caps_attrs, branches_show: x86_pmu.lbr_nr).
         */
        LBR("last branch records (a core PMU with caps/branches)", "/sys/bus/event_source/devices/cpu/caps/branches"),
        /**
         * User-mode BTS through perf: a core PMU on a CPU with the BTS feature (CPUID.01H:EDX[21] DS
         * and IA32_MISC_ENABLE[11] clear; the kernel's X86_FEATURE_BTS, "bts" in /proc/cpuinfo).
         */
        BTS("the branch trace store (a core PMU and the bts CPU flag)", "/proc/cpuinfo flag bts"),
        /** The intel_bts event source, which kernel-mode BTS goes through (arch/x86/events/intel/bts.c). */
        INTEL_BTS("the intel_bts PMU", "/sys/bus/event_source/devices/intel_bts"),
        /** A second online CPU. */
        SECOND_CPU("a second online CPU", "/sys/devices/system/cpu/cpu1/online");

        private final String description;
        private final String probe;

        Hardware(String description, String probe) {
            this.description = description;
            this.probe = probe;
        }

        /** The helper's own probe of this host (hybrid PMUs count as a core PMU). */
        public boolean present() {
            return switch (this) {
                case CORE_PMU -> exists(probe) || exists("/sys/bus/event_source/devices/cpu_core")
                        || exists("/sys/bus/event_source/devices/cpu_atom");
                case LBR -> positive(probe) || positive("/sys/bus/event_source/devices/cpu_core/caps/branches");
                case BTS -> CORE_PMU.present() && cpuFlag("bts");
                case INTEL_BTS -> exists(probe);
                case SECOND_CPU -> firstLine(probe).equals("1");
            };
        }

        private static boolean exists(String p) {
            return Files.exists(Path.of(p));
        }

        /** A sysfs number above 0 (caps/branches is the LBR depth, 0 or absent without LBR). */
        private static boolean positive(String p) {
            return firstLine(p).matches("[1-9][0-9]*");
        }

        private static String firstLine(String p) {
            try {
                return Files.readString(Path.of(p)).trim();
            } catch (IOException e) {
                return "";
            }
        }

        private static boolean cpuFlag(String flag) {
            try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
                return lines.filter(l -> l.startsWith("flags")).findFirst()
                        .map(l -> (" " + l.substring(l.indexOf(':') + 1) + " ").contains(" " + flag + " ")).orElse(false);
            } catch (IOException e) {
                return false;
            }
        }
    }
}
