package dev.hwtool.testing;

import dev.hwtool.io.CpuList;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.ServiceLoader;
import java.util.concurrent.TimeUnit;

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
 *
 * <p>It lives in hwtool-api's test jar, so that the lowest module's tests use it too; it is pure
 * Java. The few probes that take a native call (perf_event_open through a seccomp filter, the
 * CPUID instruction) ask a {@link NativeProbe}, which native-access's test jar provides
 * ({@code NativeBindingProbe}, through {@link ServiceLoader}): a module below native-access has
 * none, and there those probes say so.
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

    // ---- the CPUs this process may run on

    /**
     * The CPUs this process may run on: its affinity mask (/proc/self/status Cpus_allowed_list,
     * what sched_getaffinity(2) gives the main thread; taskset and cpusets narrow it) intersected
     * with the online CPUs, in ascending order. Never assume every online CPU is here, nor CPU 0.
     */
    public static List<Integer> cpusInMask() {
        List<Integer> mask = CpuList.parse(statusField("Cpus_allowed_list"));
        List<Integer> online = CpuList.online();
        List<Integer> both = mask.stream().filter(online::contains).toList();
        if (both.isEmpty()) {
            throw new IllegalStateException("no online CPU in this process's affinity mask " + mask + " (online " + online + ")");
        }
        return both;
    }

    /** The first CPU of {@link #cpusInMask()}: the CPU a test pins to when any one will do. */
    public static int firstCpuInMask() {
        return cpusInMask().getFirst();
    }

    /** A CPU of the mask other than {@code cpu}; without one the test skips, also in CI ({@link Hardware#SECOND_CPU_IN_MASK}). */
    public static int cpuInMaskOtherThan(int cpu) {
        Optional<Integer> other = cpusInMask().stream().filter(c -> c != cpu).findFirst();
        if (other.isEmpty()) {
            hostHas(Hardware.SECOND_CPU_IN_MASK); // the mask is {cpu} alone: skips
        }
        return other.orElseThrow();
    }

    /** The first two CPUs of the mask; with fewer the test skips, also in CI ({@link Hardware#SECOND_CPU_IN_MASK}). */
    public static List<Integer> twoCpusInMask() {
        hostHas(Hardware.SECOND_CPU_IN_MASK);
        return cpusInMask().subList(0, 2);
    }

    // ---- privilege

    /** Whether this process's effective user is root (/proc/self/status Uid:, the second field). */
    public static boolean isRoot() {
        return statusField("Uid").trim().split("\\s+")[1].equals("0");
    }

    /** Whether {@code cap} (a number from linux/capability.h) is in this process's effective set (CapEff). */
    public static boolean hasCapability(int cap) {
        return new java.math.BigInteger(statusField("CapEff").trim(), 16).testBit(cap);
    }

    /** CAP_SYS_ADMIN, CAP_SYS_RAWIO and CAP_PERFMON (include/uapi/linux/capability.h). */
    public static final int CAP_SYS_RAWIO = 17;
    public static final int CAP_SYS_ADMIN = 21;
    public static final int CAP_PERFMON = 38;

    /**
     * The environment variable that says a run is unprivileged by design: CI's non-root leg
     * (.ci/host-matrix) sets it, as a user without root and without capabilities. There, what
     * only privilege gives (root, CAP_SYS_RAWIO, the 0400 cpuid nodes, counting the kernel) is a
     * fact of the run and skips with its reason, also in CI; every tool still fails when missing.
     */
    public static final String UNPRIVILEGED_ENV = "HWTOOL_UNPRIVILEGED";

    /** Whether this run is unprivileged by design ({@value #UNPRIVILEGED_ENV} set) and really is not root. */
    public static boolean unprivilegedRun() {
        String v = System.getenv(UNPRIVILEGED_ENV);
        return v != null && !v.isEmpty() && !v.equals("0") && !isRoot();
    }

    /**
     * A condition only privilege meets: in an unprivileged run ({@link #unprivilegedRun}) its
     * absence skips with the reason, also in CI; otherwise it is {@link #that}.
     */
    public static void privileged(boolean condition, String reason) {
        if (!condition && unprivilegedRun()) {
            Assumptions.abort("this run is unprivileged by design (" + UNPRIVILEGED_ENV + "): " + reason);
        }
        that(condition, reason);
    }

    /** The test needs root for {@code what}; a non-root user skips locally, CI (which runs as root) fails. */
    public static void root(String what) {
        privileged(isRoot(), what + " needs root; this test runs as uid " + statusField("Uid").trim().split("\\s+")[1]);
    }

    /**
     * The test opens /dev/cpu/N/msr for {@code what}: msr_open (arch/x86/kernel/msr.c) asks for
     * CAP_SYS_RAWIO, and the node is 0600 root. A user skips locally, CI (root) fails.
     */
    public static void rawio(String what) {
        root(what);
        privileged(hasCapability(CAP_SYS_RAWIO), what + " needs CAP_SYS_RAWIO (msr_open); this root process lacks it (a container drops it)");
    }

    /**
     * The cpuid driver (arch/x86/kernel/cpuid.c) is loaded and this process can read its node for
     * the first CPU of the mask: the nodes are 0400 root (cpuid_devnode), so a non-root user
     * skips locally and CI fails.
     */
    public static void cpuidDevice() {
        Path node = Path.of("/dev/cpu/" + firstCpuInMask() + "/cpuid");
        that(Files.exists(node), node + " is absent: the cpuid driver is not loaded (modprobe cpuid)");
        privileged(Files.isReadable(node), node + " is not readable by this user (the node is 0400 root: run as root)");
    }

    // ---- perf_event_open

    /**
     * The kernel's perf_event_paranoid (/proc/sys/kernel/perf_event_paranoid, kernel/events/core.c
     * sysctl_perf_event_paranoid; Documentation/admin-guide/perf-security.rst): -1 anything, 0 no
     * raw tracepoints for users, 1 no CPU-wide events, 2 user-space counting of one's own processes
     * only; Debian's kernels add 3, no perf_event_open at all without CAP_PERFMON.
     */
    public static int perfEventParanoid() {
        String v = Hardware.firstLine("/proc/sys/kernel/perf_event_paranoid");
        return v.isEmpty() ? Integer.MAX_VALUE : Integer.parseInt(v);
    }

    /** Whether this process may use perf_event_open at {@code level} and above without privilege. */
    private static boolean perfPrivileged() {
        return hasCapability(CAP_PERFMON) || hasCapability(CAP_SYS_ADMIN);
    }

    /**
     * The test counts its own processes' user-space events through perf_event_open: needs
     * perf_event_paranoid at most 2 or CAP_PERFMON, and no seccomp filter refusing the call
     * (Docker's default profile refuses perf_event_open with EPERM). Fixable: skip locally, fail in CI.
     */
    public static void perfCountsOwnProcesses() {
        perfEventOpenReachesTheKernel();
        int level = perfEventParanoid();
        privileged(level <= 2 || perfPrivileged(), "perf_event_paranoid is " + level
                + ": counting one's own processes needs 2 or less, or CAP_PERFMON (sysctl kernel.perf_event_paranoid=2)");
    }

    /**
     * Whether this process may count kernel mode: perf_event_paranoid 1 or less, or CAP_PERFMON
     * (kernel/events/core.c perf_allow_kernel, asked when exclude_kernel is 0). Without it hwtool,
     * like perf, counts user mode only and names the events with ":u"; what happens in a system
     * call (dd's read() filling its buffer) is then not counted.
     */
    public static boolean perfCountsKernel() {
        return perfEventParanoid() <= 1 || perfPrivileged();
    }

    /** As {@link #perfCountsOwnProcesses}, for events that count the kernel too or whole CPUs (paranoid at most {@code level}). */
    public static void perfParanoidAtMost(int level, String what) {
        perfEventOpenReachesTheKernel();
        int now = perfEventParanoid();
        privileged(now <= level || perfPrivileged(), what + " needs perf_event_paranoid at most " + level
                + " or CAP_PERFMON; it is " + now + " (sysctl kernel.perf_event_paranoid=" + level + ")");
    }

    /**
     * No seccomp filter stops perf_event_open before the kernel sees it. Probe: perf_event_open
     * with a NULL attr, which the kernel itself answers with EFAULT (perf_copy_attr); a filter
     * answers first (EPERM from Docker's default profile, or ENOSYS). /proc/self/status Seccomp:
     * says whether a filter is installed (2) at all.
     */
    public static void perfEventOpenReachesTheKernel() {
        String mode = statusField("Seccomp").trim();
        if (mode.equals("0")) {
            return;
        }
        Optional<NativeProbe> probe = nativeProbe();
        that(probe.isPresent(), "a seccomp filter is installed (Seccomp: " + mode + " in /proc/self/status), and whether it"
                + " refuses perf_event_open takes a native call this module's tests cannot make (native-access's test jar"
                + " has the probe)");
        String errno = probe.orElseThrow().perfEventOpenNullErrno();
        that(errno.equals("EFAULT"), "a seccomp filter (Seccomp: " + mode + " in /proc/self/status) refuses perf_event_open with "
                + errno + " (a container: run with --security-opt seccomp=unconfined or a profile allowing perf_event_open)");
    }

    /** The native probes, if native-access's test jar is on the class path (a module below it has none). */
    static Optional<NativeProbe> nativeProbe() {
        return ServiceLoader.load(NativeProbe.class).findFirst();
    }

    /** The native probes, for a probe that has no answer without them. */
    private static NativeProbe nativeProbe(String what) {
        return nativeProbe().orElseThrow(() -> new IllegalStateException(what
                + " takes a native call: put native-access's test jar on the test class path (dev.hwtool.testing.NativeBindingProbe)"));
    }

    /**
     * The name of the core PMU's event source: {@code cpu}, or on hybrid parts {@code cpu_core}
     * (with {@code cpu_atom} beside it; arch/x86/events/intel/core.c, intel_pmu_init's hybrid
     * pmus). Empty without a core PMU.
     */
    public static Optional<String> corePmu() {
        for (String name : List.of("cpu", "cpu_core", "cpu_atom")) {
            if (Files.isDirectory(Path.of("/sys/bus/event_source/devices", name))) {
                return Optional.of(name);
            }
        }
        return Optional.empty();
    }

    // ---- memory

    /** /sys/kernel/mm/transparent_hugepage/enabled: the mode in brackets (mm/huge_memory.c enabled_show). */
    public enum Thp {
        /** Any large enough anonymous mapping may fault in PMD-sized pages. */
        ALWAYS,
        /** Only ranges marked MADV_HUGEPAGE. */
        MADVISE,
        /** Never. */
        NEVER;

        /** This host's mode; NEVER when the kernel has no THP (the file is absent). */
        public static Thp host() {
            String line = Hardware.firstLine("/sys/kernel/mm/transparent_hugepage/enabled");
            int open = line.indexOf('[');
            if (open < 0) {
                return NEVER;
            }
            return valueOf(line.substring(open + 1, line.indexOf(']', open)).toUpperCase(Locale.ROOT));
        }

        /** The PMD page size a THP fault maps (hpage_pmd_size; 2 MiB on x86-64). */
        public static long pmdSize() {
            String v = Hardware.firstLine("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size");
            return v.isEmpty() ? 2L << 20 : Long.parseLong(v);
        }

        /**
         * The fewest page faults that can fill a fresh anonymous buffer of {@code bytes} in this mode
         * by a program that does not madvise it (dd): one per 4 KiB page, or in mode ALWAYS one per
         * PMD page, since a THP fault maps a whole PMD (mm/huge_memory.c do_huge_pmd_anonymous_page).
         */
        public long fewestFaults(long bytes) {
            return this == ALWAYS ? bytes / pmdSize() : bytes / 4096;
        }
    }

    // ---- libraries

    /**
     * The path of the library the dynamic linker would load for {@code soname} (ldconfig -p, the
     * x86-64 entry), as the code under test loads it by soname; no multiarch path is assumed.
     * Without it the test skips locally and fails in CI ({@code debianPackage} provides it).
     */
    public static Path library(String soname, String debianPackage) {
        Optional<Path> found = findLibrary(soname);
        that(found.isPresent(), soname + " is not in ldconfig -p (apt-get install " + debianPackage + ")");
        return found.orElseThrow();
    }

    /** {@link #library} without the skip. */
    public static Optional<Path> findLibrary(String soname) {
        Path ldconfig = Files.isExecutable(Path.of("/sbin/ldconfig")) ? Path.of("/sbin/ldconfig") : Path.of("/usr/sbin/ldconfig");
        try {
            Process p = new ProcessBuilder(ldconfig.toString(), "-p").redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            // "\tlibc.so.6 (libc6,x86-64) => /lib/x86_64-linux-gnu/libc.so.6" (elf/ldconfig.c)
            return out.lines().map(String::trim)
                    .filter(l -> l.startsWith(soname + " (") && l.contains("x86-64") && l.contains(" => "))
                    .map(l -> Path.of(l.substring(l.indexOf(" => ") + 4).trim()))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }

    // ---- CPUID

    /**
     * The first place where this host's CPUID answers differ for the same question: two reads
     * through the instruction on a thread pinned to a CPU of the mask, two through
     * /dev/cpu/N/cpuid (the kernel runs CPUID on that CPU, arch/x86/kernel/cpuid.c), every basic
     * and extended leaf, subleaves 0-3. Empty when they all agree. A hypervisor may answer user
     * space and the kernel differently (bhyve: leaf 1 EBX's APIC ID changing between calls, ECX
     * differing), which is that host's fact, not a law. Needs the device: {@link #cpuidDevice()}.
     */
    public static Optional<String> cpuidDisagreement() {
        if (cpuidDisagreement == null) {
            cpuidDisagreement = probeCpuid();
        }
        return cpuidDisagreement;
    }

    private static Optional<String> cpuidDisagreement;

    private static Optional<String> probeCpuid() {
        return nativeProbe("comparing the CPUID instruction with /dev/cpu/N/cpuid").cpuidDisagreement(cpusInMask());
    }

    /**
     * The instruction and /dev/cpu/N/cpuid answer alike and steadily on this host (probed by
     * {@link #cpuidDisagreement()}); otherwise the test skips, also in CI, with the disagreement.
     * Needs the device readable first, which is fixable ({@link #cpuidDevice()}).
     */
    public static void cpuidPathsAgree() {
        cpuidDevice();
        hostHas(Hardware.CPUID_PATHS_AGREE);
    }

    /** RDTSCP, which this host advertises in CPUID.80000001H:EDX[27] (SDM Vol. 2B, RDTSCP), read through the instruction. */
    public static void rdtscp() {
        hostHas(Hardware.RDTSCP);
    }

    private static String statusField(String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith(name + ":")) {
                    return line.substring(name.length() + 1).trim();
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("/proc/self/status: " + e.getMessage(), e);
        }
        throw new IllegalStateException("no " + name + ": line in /proc/self/status");
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
            Assumptions.abort("this host lacks the hardware: " + h.description + " (" + h.probe + ": " + h.finding() + ")");
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
     * The allow-list of reasons a test may skip in CI: hardware (or the hypervisor's choice of it,
     * or the share of the CPUs this process was given) that no package or setting on the host can
     * provide. Each carries its own probe of the host.
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
        SECOND_CPU("a second online CPU", "/sys/devices/system/cpu/cpu1/online"),
        /** Two CPUs this process may run on: a cpuset or taskset may give it one. */
        SECOND_CPU_IN_MASK("a second CPU in this process's affinity mask",
                "/proc/self/status Cpus_allowed_list and /sys/devices/system/cpu/online"),
        /** CPU 0 in this process's affinity mask, for a test about CPU 0 itself. */
        CPU0_IN_MASK("CPU 0 in this process's affinity mask", "/proc/self/status Cpus_allowed_list"),
        /** The RDTSCP instruction: CPUID.80000001H:EDX[27] (SDM Vol. 2B, RDTSCP; a hypervisor may hide it). */
        RDTSCP("the RDTSCP instruction", "CPUID.80000001H:EDX[27] through the instruction"),
        /**
         * CPUID in user space (the instruction) and in the kernel (/dev/cpu/N/cpuid) answering
         * alike and steadily on a pinned thread: a hypervisor traps CPUID and may answer them
         * differently (bhyve does). See {@link Preconditions#cpuidDisagreement()}.
         */
        CPUID_PATHS_AGREE("user-space CPUID and /dev/cpu/N/cpuid answering alike",
                "the instruction and the device read twice each on every CPU of the mask"),
        /**
         * The kernel runs 32-bit (IA-32) programs: built with CONFIG_IA32_EMULATION and not booted
         * with it off (ia32_emulation=, arch/x86/Kconfig; compat_elf_check_arch in
         * arch/x86/include/asm/elf.h refuses the ELF with ENOEXEC otherwise). A hypervisor may
         * override the setting, as this project's sandbox does while /proc/config.gz says y, so the
         * probe does not trust the configuration: it executes a 32-bit ELF and looks for its exit
         * code. No package gives it back; the perf corpus's i686 recordings cover the names.
         */
        IA32_EXECUTION("the kernel executing 32-bit (IA-32) programs", "execve of a 32-bit ELF that exits 42");

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
                case SECOND_CPU_IN_MASK -> cpusInMask().size() >= 2;
                case CPU0_IN_MASK -> cpusInMask().contains(0);
                case RDTSCP -> rdtscpAdvertised();
                case CPUID_PATHS_AGREE -> cpuidDisagreement().isEmpty();
                case IA32_EXECUTION -> ia32Refusal().isEmpty();
            };
        }

        /** What the probe found, for a skip's reason. */
        String finding() {
            return switch (this) {
                case SECOND_CPU_IN_MASK, CPU0_IN_MASK -> "CPUs in the mask and online: " + CpuList.format(cpusInMask());
                case RDTSCP -> "the bit is clear";
                case CPUID_PATHS_AGREE -> cpuidDisagreement().orElse("they agree");
                case IA32_EXECUTION -> ia32Refusal().orElse("it ran");
                default -> "absent";
            };
        }

        /** {@link #ia32Executes()}, run once per JVM (present() and finding() both ask). */
        static synchronized Optional<String> ia32Refusal() {
            if (ia32Refusal == null) {
                ia32Refusal = ia32Executes();
            }
            return ia32Refusal;
        }

        private static Optional<String> ia32Refusal;

        /**
         * Executes a minimal ELF32 i386 executable written here (System V i386 ABI: one PT_LOAD of
         * the file at 0x08048000, entry after the headers; {@code exit(42)} through {@code int 0x80},
         * eax 1 = __NR_exit in arch/x86/entry/syscalls/syscall_32.tbl). Empty when it ran and
         * exited 42, else what happened.
         */
        private static Optional<String> ia32Executes() {
            byte[] code = {(byte) 0xb8, 1, 0, 0, 0, (byte) 0xbb, 42, 0, 0, 0, (byte) 0xcd, (byte) 0x80};
            int base = 0x0804_8000;
            int headers = 52 + 32;
            ByteBuffer elf = ByteBuffer.allocate(headers + code.length).order(ByteOrder.LITTLE_ENDIAN);
            elf.put(new byte[]{0x7f, 'E', 'L', 'F', 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0}); // ELFCLASS32, ELFDATA2LSB
            elf.putShort((short) 2).putShort((short) 3).putInt(1); // ET_EXEC, EM_386, EV_CURRENT
            elf.putInt(base + headers).putInt(52).putInt(0).putInt(0); // e_entry, e_phoff, e_shoff, e_flags
            elf.putShort((short) 52).putShort((short) 32).putShort((short) 1); // e_ehsize, e_phentsize, e_phnum
            elf.putShort((short) 0).putShort((short) 0).putShort((short) 0); // no sections
            elf.putInt(1).putInt(0).putInt(base).putInt(base); // PT_LOAD, p_offset, p_vaddr, p_paddr
            elf.putInt(headers + code.length).putInt(headers + code.length).putInt(5).putInt(0x1000); // R+X
            elf.put(code);
            Path f = null;
            try {
                f = Files.createTempFile("hwtool-ia32-", "");
                Files.write(f, elf.array());
                Files.setPosixFilePermissions(f, java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
                Process p = new ProcessBuilder(f.toString()).redirectErrorStream(true).start();
                p.getInputStream().transferTo(java.io.OutputStream.nullOutputStream());
                int rc = p.waitFor();
                // On ENOEXEC the JDK runs the file as a shell script (java.base's childproc.c, as
                // execvp does), so a refused ELF shows as /bin/sh's exit status, not as an error.
                return rc == 42 ? Optional.empty()
                        : Optional.of("it exited " + rc + ": the kernel did not run it (ENOEXEC, then /bin/sh)");
            } catch (IOException e) {
                // ProcessBuilder reports execve's errno: "error=8, Exec format error" is ENOEXEC
                return Optional.of("execve failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Optional.of("interrupted");
            } finally {
                if (f != null) {
                    try {
                        Files.deleteIfExists(f);
                    } catch (IOException ignored) {
                        // a temp file left in java.io.tmpdir
                    }
                }
            }
        }

        private static boolean rdtscpAdvertised() {
            return nativeProbe("executing CPUID").rdtscpAdvertised();
        }

        private static boolean exists(String p) {
            return Files.exists(Path.of(p));
        }

        /** A sysfs number above 0 (caps/branches is the LBR depth, 0 or absent without LBR). */
        private static boolean positive(String p) {
            return firstLine(p).matches("[1-9][0-9]*");
        }

        static String firstLine(String p) {
            try {
                return Files.readString(Path.of(p)).trim();
            } catch (IOException e) {
                return "";
            }
        }

        /** Whether /proc/cpuinfo's first "flags" line names FLAG (the kernel's claim: arch/x86/kernel/cpu/proc.c). */
        public static boolean cpuFlag(String flag) {
            try (var lines = Files.lines(Path.of("/proc/cpuinfo"))) {
                return lines.filter(l -> l.startsWith("flags")).findFirst()
                        .map(l -> (" " + l.substring(l.indexOf(':') + 1) + " ").contains(" " + flag + " ")).orElse(false);
            } catch (IOException e) {
                return false;
            }
        }
    }
}
