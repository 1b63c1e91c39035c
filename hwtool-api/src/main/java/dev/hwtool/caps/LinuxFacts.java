package dev.hwtool.caps;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * What the running Linux kernel offers hwtool, as read from /proc, /sys and /dev: a pure value.
 * {@code dev.hwtool.linux.sys.LinuxProbe} fills it; {@link Verdicts} judges it. Paths inside are the
 * system paths (e.g. {@code /proc/self/status}) even when a test read them from a fixture tree.
 *
 * @param kernelRelease     /proc/sys/kernel/osrelease
 * @param machine           /proc/sys/kernel/arch (e.g. "x86_64")
 * @param onlineCpus        /sys/devices/system/cpu/online, expanded
 * @param devCpuPresent     whether the directory /dev/cpu exists at all (a container may lack it)
 * @param cpus              per CPU, the union of online CPUs and /dev/cpu/N directories, ascending
 * @param msrDriver         the msr driver (arch/x86/kernel/msr.c)
 * @param cpuidDriver       the cpuid driver (arch/x86/kernel/cpuid.c)
 * @param credentials       euid, CapEff, user namespace, seccomp of this process
 * @param lockdown          /sys/kernel/security/lockdown, the bracketed level
 * @param msrAllowWrites    /sys/module/msr/parameters/allow_writes
 * @param perfEventParanoid /proc/sys/kernel/perf_event_paranoid
 * @param perfEventMlockKb  /proc/sys/kernel/perf_event_mlock_kb
 * @param pmus              /sys/bus/event_source/devices/*, by name
 * @param container         whether and which container this process runs in
 * @param meltdown          /sys/devices/system/cpu/vulnerabilities/meltdown
 * @param kernelConfig      the few build options that decide verdicts, from /proc/config.gz or /boot
 */
public record LinuxFacts(Fact<String> kernelRelease, Fact<String> machine, Fact<List<Integer>> onlineCpus,
                         boolean devCpuPresent, List<CpuDevices> cpus, Driver msrDriver, Driver cpuidDriver,
                         Credentials credentials, Fact<Lockdown> lockdown, Fact<AllowWrites> msrAllowWrites,
                         Fact<Integer> perfEventParanoid, Fact<Integer> perfEventMlockKb, List<Pmu> pmus,
                         Container container, Fact<String> meltdown, KernelConfig kernelConfig) {

    /** Names the kernel gives the core PMU: "cpu", or per core type on hybrid parts (events/intel/core.c). */
    public static final List<String> CORE_PMU_NAMES = List.of("cpu", "cpu_core", "cpu_atom", "cpu_lowpower");

    public LinuxFacts {
        cpus = List.copyOf(cpus);
        pmus = List.copyOf(pmus);
    }

    /** Kernel lockdown levels (security/lockdown/lockdown.c), weakest first. */
    public enum Lockdown {
        NONE, INTEGRITY, CONFIDENTIALITY;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }

        /** Integrity and above forbid raw MSR writes (LOCKDOWN_MSR is an integrity reason). */
        public boolean forbidsMsrWrites() {
            return this != NONE;
        }
    }

    /** msr.allow_writes (arch/x86/kernel/msr.c, since 5.9); get() prints these words. */
    public enum AllowWrites {
        ON, OFF, DEFAULT;

        public String label() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** How a driver is present in the running kernel. */
    public enum DriverState {
        /** A loadable module, loaded (/sys/module/NAME/initstate exists). */
        MODULE_LOADED,
        /** Compiled into the kernel. */
        BUILT_IN,
        /** Built as a module (=m, or the .ko is installed) but not loaded. */
        MODULE_NOT_LOADED,
        /** The kernel configuration says it was not built at all. */
        NOT_BUILT,
        /** Nothing tells: no /sys/module entry, no device nodes, no kernel configuration. */
        UNKNOWN;

        public boolean present() {
            return this == MODULE_LOADED || this == BUILT_IN;
        }
    }

    /**
     * @param name     "msr" or "cpuid"
     * @param evidence the file and value that decided the state, for the reason text
     */
    public record Driver(String name, DriverState state, String evidence) {
    }

    /**
     * One device node, e.g. /dev/cpu/0/msr.
     *
     * @param charDevice whether it is a character device (fixtures use regular files)
     * @param major      major number (202 msr, 203 cpuid) or -1 when unknown
     * @param mode       as ls shows it, e.g. "crw-------"
     * @param readable   Files.isReadable for this process (access(2), so root passes)
     * @param writable   Files.isWritable for this process
     */
    public record DeviceNode(String path, boolean present, boolean charDevice, int major, int minor, String mode,
                             String owner, String group, boolean readable, boolean writable) {
        public static DeviceNode absent(String path) {
            return new DeviceNode(path, false, false, -1, -1, "", "", "", false, false);
        }

        /** e.g. "crw------- root:root". */
        public String modeAndOwner() {
            return mode + " " + owner + ":" + group;
        }
    }

    /**
     * @param online    listed in /sys/devices/system/cpu/online
     * @param directory /dev/cpu/N exists
     */
    public record CpuDevices(int cpu, boolean online, boolean directory, DeviceNode msr, DeviceNode cpuid) {
    }

    /**
     * @param euid                 effective uid, from the Uid: line of /proc/self/status
     * @param capEff               the CapEff mask of /proc/self/status
     * @param initialUserNamespace whether /proc/self/uid_map is the identity map of the initial
     *                             namespace; capable() (used by msr_open) checks that namespace
     * @param seccomp              the Seccomp: mode (0 off, 1 strict, 2 filter)
     * @param seccompFilters       the Seccomp_filters: count (Linux 5.9+), how many filters are attached
     */
    public record Credentials(Fact<Integer> euid, Fact<Long> capEff, Fact<Boolean> initialUserNamespace,
                              Fact<Integer> seccomp, Fact<Integer> seccompFilters) {

        /**
         * Seccomp mode 2: a filter decides every system call of this process, and may answer one
         * with an errno before the kernel looks at it (Docker's default profile answers
         * perf_event_open with EPERM unless the container has CAP_SYS_ADMIN or CAP_PERFMON).
         */
        public boolean seccompFiltered() {
            return seccomp.orElse(0) == 2;
        }

        /** "seccomp filter mode (N filters)", or "seccomp filter mode" where the count is not shown. */
        public String seccompDescription() {
            return "seccomp filter mode" + seccompFilters.optional().map(n -> " (" + n + (n == 1 ? " filter" : " filters")
                    + ")").orElse("");
        }

        /** Whether CapEff is known and has the capability (false when unknown). */
        public boolean has(Capability c) {
            return capEff.optional().map(c::in).orElse(false);
        }

        /** perfmon_capable(): CAP_PERFMON or CAP_SYS_ADMIN (include/linux/capability.h). */
        public boolean perfmonCapable() {
            return has(Capability.CAP_PERFMON) || has(Capability.CAP_SYS_ADMIN);
        }

        public boolean root() {
            return euid.optional().map(u -> u == 0).orElse(false);
        }

        /** Rootless containers: capabilities held only inside a child user namespace. */
        public boolean namespacedOnly() {
            return initialUserNamespace.optional().map(b -> !b).orElse(false);
        }
    }

    /**
     * One PMU under /sys/bus/event_source/devices.
     *
     * @param type       the perf_event_attr.type to use for it
     * @param branches   caps/branches: the LBR depth the kernel drives (only present when non-zero)
     * @param pmuName    caps/pmu_name, e.g. "skylake"
     * @param maxPrecise caps/max_precise (PEBS precise_ip levels)
     * @param rdpmc      the rdpmc attribute: 0 off, 1 while a perf event is mmap'd, 2 always
     */
    public record Pmu(String name, Fact<Integer> type, Fact<Integer> branches, Fact<String> pmuName,
                      Fact<Integer> maxPrecise, Fact<Integer> rdpmc) {

        public boolean core() {
            return CORE_PMU_NAMES.contains(name);
        }

        public String sysfsPath() {
            return "/sys/bus/event_source/devices/" + name;
        }
    }

    /**
     * @param kind     e.g. "docker", "podman", "lxc", "kubernetes", "" when none detected
     * @param evidence the markers found, e.g. "/.dockerenv exists"; when none is detected, the
     *                 markers found but not believed (a lone /.dockerenv), or nothing
     */
    public record Container(boolean detected, String kind, List<String> evidence) {
        public static final Container NONE = new Container(false, "", List.of());

        public Container {
            evidence = List.copyOf(evidence);
        }
    }

    /**
     * The build options hwtool cares about: name → "y", "m", "n" ("# ... is not set") or the value.
     *
     * @param source where they came from ("/proc/config.gz", "/boot/config-6.1.0"), "" when none found
     */
    public record KernelConfig(String source, Map<String, String> options) {
        public static final KernelConfig NONE = new KernelConfig("", Map.of());

        /** The options read; others are dropped so the value stays small. */
        public static final Set<String> WANTED = Set.of(
                "CONFIG_X86_MSR", "CONFIG_X86_CPUID", "CONFIG_MODULES", "CONFIG_PERF_EVENTS",
                "CONFIG_CPU_SUP_INTEL", "CONFIG_CPU_SUP_AMD", "CONFIG_SECURITY_LOCKDOWN_LSM",
                "CONFIG_LOCK_DOWN_KERNEL_FORCE_NONE", "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY",
                "CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY", "CONFIG_SECURITY_PERF_EVENTS_RESTRICT",
                "CONFIG_PAGE_TABLE_ISOLATION", "CONFIG_MITIGATION_PAGE_TABLE_ISOLATION",
                "CONFIG_PERF_EVENTS_AMD_BRS");

        public KernelConfig {
            options = Map.copyOf(options);
        }

        public Optional<String> get(String option) {
            return Optional.ofNullable(options.get(option));
        }

        public boolean is(String option, String value) {
            return value.equals(options.get(option));
        }
    }

    public Optional<Pmu> pmu(String name) {
        return pmus.stream().filter(p -> p.name().equals(name)).findFirst();
    }

    /** The core PMUs present: "cpu", or "cpu_core"/"cpu_atom"/... on hybrid parts. */
    public List<Pmu> corePmus() {
        return pmus.stream().filter(Pmu::core).toList();
    }

    /** KPTI is on when the meltdown line says so ("Mitigation: PTI"). */
    public boolean kpti() {
        return meltdown.optional().map(s -> s.contains("PTI")).orElse(false);
    }

    /** "none", "integrity", "confidentiality", or "unavailable" (no file) / "unreadable". */
    public String lockdownLabel() {
        return switch (lockdown) {
            case Fact.Known<Lockdown> k -> k.value().label();
            case Fact.Absent<Lockdown> a -> "unavailable";
            case Fact.Unreadable<Lockdown> u -> "unreadable";
            case Fact.Malformed<Lockdown> m -> "malformed";
        };
    }
}
