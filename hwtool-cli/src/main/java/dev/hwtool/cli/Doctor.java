package dev.hwtool.cli;

import dev.hwtool.caps.CpuChoice;
import dev.hwtool.linux.CpuidPathCheck;

import dev.hwtool.api.Cause;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.caps.Capability;
import dev.hwtool.caps.Fact;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.AllowWrites;
import dev.hwtool.caps.LinuxFacts.CpuDevices;
import dev.hwtool.caps.LinuxFacts.Credentials;
import dev.hwtool.caps.LinuxFacts.DeviceNode;
import dev.hwtool.caps.LinuxFacts.Lockdown;
import dev.hwtool.caps.LinuxFacts.Pmu;
import dev.hwtool.caps.MissingNode;
import dev.hwtool.caps.Verdicts;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The precondition checks of {@code hwtool doctor}: one fact (or one live read) each, read as
 * ok, warn or fail with the fix. A pure function of what was probed. Facility-level judgement
 * (can this machine read MSRs, record LBRs, ...) stays in {@link Verdicts}; the fixes quoted here
 * are its remedy texts, so the two reports never disagree on what to do.
 *
 * <p>A check whose prerequisite failed says so and points at it with status warn, so that one
 * missing thing fails once, not once per consequence.
 */
final class Doctor {

    static final String MOUNT_SECURITYFS = "sudo mount -t securityfs securityfs /sys/kernel/security";

    private final LinuxFacts linux;
    private final CpuCapabilities cpu;
    private final String cpuError;
    private final boolean container;

    private Doctor(LinuxFacts linux, CpuCapabilities cpu, String cpuError) {
        this.linux = linux;
        this.cpu = cpu;
        this.cpuError = cpuError;
        this.container = linux.container().detected();
    }

    /**
     * @param cpu      this machine's CPU decoded from CPUID, or null when it could not be read
     * @param cpuError why {@code cpu} is null
     */
    static List<DoctorCheck> checks(LinuxFacts linux, CpuCapabilities cpu, String cpuError, LiveRead live) {
        Doctor d = new Doctor(linux, cpu, cpuError);
        List<DoctorCheck> checks = new ArrayList<>();
        checks.add(d.kernel());
        checks.add(d.cpuMsrFeature());
        checks.add(d.msrDriver());
        checks.add(d.msrDevices());
        checks.add(d.cpuidDevices());
        checks.add(d.capSysRawio());
        checks.add(d.userNamespace());
        checks.add(d.lockdown());
        checks.add(d.allowWrites());
        checks.add(d.liveRead(live));
        checks.add(d.perfEventParanoid());
        checks.add(d.corePmu());
        checks.add(d.lbr());
        checks.add(d.intelPmu("intel_bts", "BTS"));
        checks.add(d.intelPmu("intel_pt", "Intel PT"));
        checks.add(d.msrPmu());
        checks.add(d.rdpmc());
        checks.add(d.container());
        return checks;
    }

    /**
     * The CPU the CPUID checks read, and its user-space CPUID held against the kernel's: where a
     * hypervisor answers the two differently, the leaves and bits, and which answer hwtool uses.
     * A warning, not a failure: both paths still work, they disagree about the machine.
     */
    static DoctorCheck cpuidPaths(CpuChoice choice, CpuidPathCheck check) {
        String cpu = "CPU " + choice.cpu() + " (" + choice.why() + ")";
        String reach = choice.outOfReach().isEmpty() ? ""
                : "; out of this process's reach: CPU " + choice.outOfReach().keySet().stream().map(String::valueOf)
                .collect(java.util.stream.Collectors.joining(", ")) + " (" + choice.outOfReach().values().iterator().next() + ")";
        String detail = cpu + ": " + check.summary() + (check.lines().isEmpty() ? "" : ": " + String.join("; ", check.lines()))
                + reach;
        return switch (check.outcome()) {
            case AGREE -> choice.outOfReach().isEmpty() ? DoctorCheck.ok("cpuid_paths", "CPUID paths", detail)
                    : DoctorCheck.warn("cpuid_paths", "CPUID paths", detail,
                    "run without the cpuset restriction, or as root for /dev/cpu/N/cpuid", null);
            case DIFFER -> DoctorCheck.warn("cpuid_paths", "CPUID paths", detail,
                    "compare with 'hwtool cpuid --source device'; the hypervisor's CPUID configuration decides", null);
            case NOT_COMPARED -> DoctorCheck.warn("cpuid_paths", "CPUID paths", detail,
                    "run as root (or grant read access to /dev/cpu/*/cpuid) to compare the two", null);
        };
    }

    /** The first failing check's cause: it decides doctor's exit code. */
    static Optional<DoctorCheck> firstFailure(List<DoctorCheck> checks) {
        return checks.stream().filter(c -> c.status() == DoctorCheck.Status.FAIL).findFirst();
    }

    // ---- the machine --------------------------------------------------------------------------

    private DoctorCheck kernel() {
        String n = "kernel";
        String l = "kernel";
        String release = linux.kernelRelease().describe();
        String config = linux.kernelConfig().source().isEmpty()
                ? "no kernel configuration found (/proc/config.gz, /boot/config-" + release + ")"
                : "configuration read from " + linux.kernelConfig().source();
        Optional<String> machine = linux.machine().optional();
        if (machine.isPresent() && !machine.get().equals("x86_64") && !machine.get().matches("i[3-6]86")) {
            return DoctorCheck.fail(n, l, "Linux " + release + " on " + machine.get()
                    + ": MSRs, CPUID, LBR and BTS are x86 facilities", "", Cause.UNSUPPORTED);
        }
        return DoctorCheck.ok(n, l, "Linux " + release + " on " + linux.machine().describe() + "; " + config);
    }

    private DoctorCheck cpuMsrFeature() {
        String n = "cpu_msr";
        String l = "CPU MSR support";
        if (cpu == null) {
            return DoctorCheck.warn(n, l, "cannot read this machine's CPUID: " + cpuError, "", null);
        }
        if (!cpu.features().msr()) {
            return DoctorCheck.fail(n, l, "CPUID.01H:EDX[5] (MSR) is clear: this CPU has no RDMSR/WRMSR",
                    "", Cause.UNSUPPORTED);
        }
        String guest = cpu.hypervisor().present()
                ? "; under " + hypervisor() + " MSRs it does not emulate raise #GP (read as EIO)" : "";
        return DoctorCheck.ok(n, l, "CPUID.01H:EDX[5] (MSR) is set: RDMSR/WRMSR exist" + guest);
    }

    // ---- the msr driver and its device nodes --------------------------------------------------

    private DoctorCheck msrDriver() {
        String n = "msr_driver";
        String l = "msr driver";
        LinuxFacts.Driver d = linux.msrDriver();
        String host = container ? "on the host: " : "";
        return switch (d.state()) {
            case MODULE_LOADED -> DoctorCheck.ok(n, l, "loaded as a module (" + d.evidence() + ")");
            case BUILT_IN -> DoctorCheck.ok(n, l, "built into the kernel (" + d.evidence() + ")");
            case MODULE_NOT_LOADED -> DoctorCheck.fail(n, l, "built as a module but not loaded (" + d.evidence()
                    + ")" + (container ? "; a container cannot load it" : ""), host + Verdicts.MODPROBE_MSR,
                    Cause.DRIVER_NOT_LOADED);
            case NOT_BUILT -> DoctorCheck.fail(n, l, "the kernel was built without CONFIG_X86_MSR ("
                    + d.evidence() + "): there is no msr driver to load", host + Verdicts.REBUILD_WITH_MSR,
                    Cause.DRIVER_NOT_LOADED);
            case UNKNOWN -> DoctorCheck.fail(n, l, "not loaded, and nothing tells whether this kernel has it ("
                    + d.evidence() + ")", host + Verdicts.MODPROBE_MSR, Cause.DRIVER_NOT_LOADED);
        };
    }

    private DoctorCheck msrDevices() {
        String n = "msr_devices";
        String l = "/dev/cpu/N/msr";
        List<CpuDevices> online = onlineCpus();
        List<CpuDevices> present = online.stream().filter(c -> c.msr().present()).toList();
        if (present.isEmpty()) {
            MissingNode.Explanation x = MissingNode.explain(linux, linux.msrDriver());
            return DoctorCheck.fail(n, l, absentOnAll(online) + x.why(), x.remedy(), x.cause());
        }
        DeviceNode first = present.getFirst().msr();
        String nodes = "present on " + present.size() + " of " + online.size() + " online CPUs ("
                + first.modeAndOwner() + (first.charDevice() ? ", char " + first.major() + ":N" : "") + ")";
        long readable = present.stream().filter(c -> c.msr().readable()).count();
        long writable = present.stream().filter(c -> c.msr().writable()).count();
        String uid = linux.credentials().euid().optional().map(String::valueOf).orElse("$(id -u)");
        if (readable == 0) {
            return DoctorCheck.fail(n, l, nodes + ", not readable by " + who() + ": open fails with EACCES",
                    "run as root (sudo), or grant access: sudo setfacl -m u:" + uid + ":rw /dev/cpu/*/msr",
                    Cause.PERMISSION_DENIED);
        }
        List<Integer> missing = online.stream().filter(c -> !c.msr().present()).map(CpuDevices::cpu).toList();
        if (!missing.isEmpty()) {
            MissingNode.Explanation x = MissingNode.explain(linux, linux.msrDriver());
            return DoctorCheck.warn(n, l, nodes + "; absent on " + cpusWord(missing) + ": " + x.why(), x.remedy(),
                    x.cause());
        }
        if (readable < present.size() || writable < present.size()) {
            return DoctorCheck.warn(n, l, nodes + ", readable by " + who() + " on " + readable + ", writable on "
                            + writable + ": writes (and reads elsewhere) fail with EACCES",
                    "run as root (sudo), or grant access: sudo setfacl -m u:" + uid + ":rw /dev/cpu/*/msr",
                    Cause.PERMISSION_DENIED);
        }
        return DoctorCheck.ok(n, l, nodes + ", readable and writable by " + who());
    }

    /**
     * Only {@code hwtool cpuid --source device} needs these nodes, so every finding is a warning.
     * Absent nodes come before unreadable ones: as root a node that is not there is not a
     * permission problem.
     */
    private DoctorCheck cpuidDevices() {
        String n = "cpuid_devices";
        String l = "/dev/cpu/N/cpuid";
        List<CpuDevices> online = onlineCpus();
        List<CpuDevices> present = online.stream().filter(c -> c.cpuid().present()).toList();
        List<Integer> missing = online.stream().filter(c -> !c.cpuid().present()).map(CpuDevices::cpu).toList();
        String use = "only 'hwtool cpuid --source device' needs it; the CPUID instruction does not";
        if (!missing.isEmpty()) {
            MissingNode.Explanation x = MissingNode.explain(linux, linux.cpuidDriver());
            String seen = present.isEmpty() ? absentOnAll(online)
                    : "present on " + present.size() + " of " + online.size() + " online CPUs, absent on "
                      + cpusWord(missing) + ": ";
            return DoctorCheck.warn(n, l, seen + x.why() + "; " + use, x.remedy(), x.cause());
        }
        long readable = present.stream().filter(c -> c.cpuid().readable()).count();
        if (readable < present.size()) {
            return DoctorCheck.warn(n, l, "present on all " + online.size() + " online CPUs but readable by " + who()
                    + " on " + readable + " (" + present.getFirst().cpuid().modeAndOwner() + "): open fails with"
                    + " EACCES; " + use, "run as root (sudo), or grant read access: sudo chmod o+r /dev/cpu/*/cpuid",
                    Cause.PERMISSION_DENIED);
        }
        return DoctorCheck.ok(n, l, "present and readable on all " + online.size() + " online CPUs");
    }

    /** "absent on all 2 online CPUs: ", or "" when the container has no /dev/cpu (the reason says so). */
    private String absentOnAll(List<CpuDevices> online) {
        return container && !linux.devCpuPresent() ? "" : "absent on all " + online.size() + " online CPUs: ";
    }

    private static String cpusWord(List<Integer> cpus) {
        return (cpus.size() == 1 ? "CPU " : "CPUs ") + CapsText.ranges(cpus);
    }

    // ---- what msr_open and msr_write check (arch/x86/kernel/msr.c) ---------------------------

    private DoctorCheck capSysRawio() {
        String n = "cap_sys_rawio";
        String l = "CAP_SYS_RAWIO";
        Credentials c = linux.credentials();
        String euid = "euid " + c.euid().describe();
        if (!c.capEff().isKnown()) {
            return DoctorCheck.warn(n, l, euid + "; CapEff unknown (/proc/self/status " + c.capEff().describe()
                    + ")", "", null);
        }
        String capEff = "CapEff 0x" + Long.toHexString(c.capEff().orElse(0L));
        if (!c.has(Capability.CAP_SYS_RAWIO)) {
            return DoctorCheck.fail(n, l, euid + ", " + capEff + " lacks CAP_SYS_RAWIO: msr_open returns EPERM",
                    container ? Verdicts.ADD_RAWIO_TO_CONTAINER : Verdicts.RUN_AS_ROOT_RAWIO,
                    Cause.MISSING_CAPABILITY);
        }
        return DoctorCheck.ok(n, l, euid + ", " + capEff + " includes CAP_SYS_RAWIO (msr_open checks it)");
    }

    private DoctorCheck userNamespace() {
        String n = "user_namespace";
        String l = "user namespace";
        Fact<Boolean> initial = linux.credentials().initialUserNamespace();
        if (!initial.isKnown()) {
            return DoctorCheck.warn(n, l, "cannot tell (/proc/self/uid_map " + initial.describe() + ")", "", null);
        }
        if (linux.credentials().namespacedOnly()) {
            return DoctorCheck.fail(n, l, "a child user namespace (/proc/self/uid_map is not the identity map):"
                            + " capabilities held here do not reach msr_open's capable() check (EPERM)",
                    Verdicts.INITIAL_USER_NAMESPACE, Cause.MISSING_CAPABILITY);
        }
        return DoctorCheck.ok(n, l, "the initial user namespace: capabilities count for the device drivers");
    }

    private DoctorCheck lockdown() {
        String n = "lockdown";
        String l = "lockdown";
        Optional<String> forced = forcedLockdown();
        return switch (linux.lockdown()) {
            case Fact.Known<Lockdown> k when k.value().forbidsMsrWrites() -> DoctorCheck.warn(n, l,
                    "[" + k.value().label() + "]: msr_write refuses every write with EPERM (LOCKDOWN_MSR);"
                            + " reads work", forced.map(o -> "boot a kernel built without " + o)
                            .orElse(Verdicts.LOCKDOWN_BOOT), Cause.LOCKDOWN);
            case Fact.Known<Lockdown> k -> DoctorCheck.ok(n, l, "none: MSR writes are not locked down");
            case Fact.Absent<Lockdown> a when forced.isPresent() -> DoctorCheck.warn(n, l, a.path()
                            + " is absent but " + forced.get() + "=y in " + linux.kernelConfig().source()
                            + ": the kernel is locked down at boot and msr_write refuses writes with EPERM",
                    "boot a kernel built without " + forced.get(), Cause.LOCKDOWN);
            case Fact.Absent<Lockdown> a when linux.kernelConfig().is("CONFIG_SECURITY_LOCKDOWN_LSM", "n") ->
                    DoctorCheck.ok(n, l, "the kernel has no lockdown LSM (CONFIG_SECURITY_LOCKDOWN_LSM is not set in "
                            + linux.kernelConfig().source() + ")");
            case Fact.Absent<Lockdown> a -> DoctorCheck.warn(n, l, "cannot tell: " + a.path()
                    + " is absent (securityfs not mounted here); if locked down, MSR writes fail with EPERM",
                    MOUNT_SECURITYFS + ", then run hwtool doctor again", null);
            default -> DoctorCheck.warn(n, l, "cannot tell: /sys/kernel/security/lockdown is "
                    + linux.lockdownLabel(), "", null);
        };
    }

    private DoctorCheck allowWrites() {
        String n = "msr_allow_writes";
        String l = "msr.allow_writes";
        String taint = "taints the kernel (TAINT_CPU_OUT_OF_SPEC, flag S)";
        boolean driver = linux.msrDriver().state().present();
        return switch (linux.msrAllowWrites()) {
            case Fact.Known<AllowWrites> k when k.value() == AllowWrites.ON -> DoctorCheck.ok(n, l,
                    "on: writes are allowed and not logged; each write still " + taint);
            case Fact.Known<AllowWrites> k when k.value() == AllowWrites.OFF -> DoctorCheck.warn(n, l,
                    "off: every write fails with EPERM (filter_write); reads work", Verdicts.ALLOW_WRITES_ON,
                    Cause.WRITES_DISABLED);
            case Fact.Known<AllowWrites> k -> DoctorCheck.warn(n, l, "default: writes are allowed, but each logs"
                    + " \"msr: Write to unrecognized MSR 0x... by ... (pid: ...)\" (at most one per 30 s) and "
                    + taint, Verdicts.ALLOW_WRITES_ON + " to stop the log lines (the taint stays)", null);
            case Fact.Absent<AllowWrites> a when driver -> DoctorCheck.ok(n, l,
                    "no such parameter: a kernel before 5.9, without the write filter");
            case Fact.Absent<AllowWrites> a -> DoctorCheck.warn(n, l, "unknown until the msr driver is loaded"
                    + " (see msr driver); since Linux 5.9 it starts as 'default' (writes logged, kernel tainted)"
                    + " unless msr.allow_writes= is on the kernel command line", "", null);
            default -> DoctorCheck.warn(n, l, "cannot tell: " + linux.msrAllowWrites().describe()
                    + " (the file is mode 0600); if it is off, writes fail with EPERM", "run as root (sudo)", null);
        };
    }

    private DoctorCheck liveRead(LiveRead live) {
        String n = "msr_read";
        String l = "live MSR read";
        String what = "IA32_TIME_STAMP_COUNTER (0x10)";
        return switch (live) {
            case LiveRead.Value v -> DoctorCheck.ok(n, l, "read " + what + " on CPU " + v.cpu() + " through "
                    + v.via() + ": " + Numbers.hex64(v.value()));
            case LiveRead.Failed f -> DoctorCheck.fail(n, l, "reading " + what + " on CPU " + f.cpu() + " failed ("
                            + f.error().cause().label() + "): " + f.error().getMessage(),
                    f.error().remedy().orElse(""), f.error().cause());
            case LiveRead.NotRun r -> DoctorCheck.warn(n, l, "not run: " + r.why(), "", null);
        };
    }

    // ---- perf ---------------------------------------------------------------------------------

    private DoctorCheck perfEventParanoid() {
        String n = "perf_event_paranoid";
        String l = "perf_event_paranoid";
        Credentials c = linux.credentials();
        String who = c.perfmonCapable()
                ? (c.has(Capability.CAP_PERFMON) ? "CAP_PERFMON" : "CAP_SYS_ADMIN") + " overrides it" : "";
        return switch (linux.perfEventParanoid()) {
            case Fact.Absent<Integer> a -> DoctorCheck.fail(n, l, a.path() + " is absent: this kernel has no perf"
                    + " events (CONFIG_PERF_EVENTS), so no LBR, BTS or counters through perf", "", Cause.UNSUPPORTED);
            case Fact.Known<Integer> k when !who.isEmpty() -> DoctorCheck.ok(n, l, k.value() + "; " + who);
            case Fact.Known<Integer> k when k.value() >= 3 -> DoctorCheck.fail(n, l, k.value()
                    + " (a distribution patch): perf_event_open refuses this user without CAP_PERFMON (EACCES)",
                    Verdicts.PARANOID_2, Cause.PERMISSION_DENIED);
            case Fact.Known<Integer> k when k.value() == 2 -> DoctorCheck.ok(n, l, "2: this user may measure its own"
                    + " processes in user space; kernel mode needs CAP_PERFMON or " + Verdicts.PARANOID_1);
            case Fact.Known<Integer> k -> DoctorCheck.ok(n, l, k.value() + ": kernel-mode measurement allowed"
                    + (k.value() <= 0 ? ", CPU-wide too" : "; CPU-wide needs CAP_PERFMON"));
            default -> DoctorCheck.warn(n, l, "cannot tell: /proc/sys/kernel/perf_event_paranoid is "
                    + linux.perfEventParanoid().describe(), "", null);
        };
    }

    private DoctorCheck corePmu() {
        String n = "core_pmu";
        String l = "core PMU";
        List<Pmu> core = linux.corePmus();
        if (!core.isEmpty()) {
            return DoctorCheck.ok(n, l, core.stream().map(p -> p.name() + " (type " + p.type().describe() + ")")
                    .collect(Collectors.joining(", ")) + " under /sys/bus/event_source/devices");
        }
        String present = linux.pmus().isEmpty() ? "none" : linux.pmus().stream().map(Pmu::name)
                .collect(Collectors.joining(", "));
        String why = "no cpu, cpu_core or cpu_atom PMU under /sys/bus/event_source/devices (present: " + present
                + "): no hardware counters, LBR or BTS through perf";
        if (cpu != null && cpu.hypervisor().present()) {
            return DoctorCheck.fail(n, l, why + "; " + hypervisor() + " gives this guest no virtual PMU",
                    Verdicts.VM_HOST_PMU, Cause.UNSUPPORTED);
        }
        return DoctorCheck.fail(n, l, why + "; the kernel registered no driver for this CPU's PMU", "",
                Cause.UNSUPPORTED);
    }

    private DoctorCheck lbr() {
        String n = "lbr";
        String l = "LBR (caps/branches)";
        List<Pmu> core = linux.corePmus();
        if (core.isEmpty()) {
            return DoctorCheck.warn(n, l, "not checked: no core PMU (see core PMU)", "", Cause.UNSUPPORTED);
        }
        List<Pmu> with = core.stream().filter(p -> p.branches().orElse(0) > 0).toList();
        if (with.isEmpty()) {
            // caps/branches is visible only when x86_pmu.lbr_nr != 0 (events/intel/core.c lbr_is_visible)
            return DoctorCheck.warn(n, l, "the " + core.stream().map(Pmu::name).collect(Collectors.joining("/"))
                    + " PMU drives no LBR (caps/branches absent); see the LBR via perf verdict", "", Cause.UNSUPPORTED);
        }
        return DoctorCheck.ok(n, l, with.stream().map(p -> p.name() + " caps/branches=" + p.branches().orElse(0))
                .collect(Collectors.joining(", ")));
    }

    private DoctorCheck intelPmu(String name, String facility) {
        String l = name + " PMU";
        Optional<Pmu> pmu = linux.pmu(name);
        if (pmu.isPresent()) {
            return DoctorCheck.ok(name, l, "registered (type " + pmu.get().type().describe() + ")");
        }
        if (cpu != null && !cpu.identity().isIntel()) {
            return DoctorCheck.warn(name, l, "absent: " + facility + " is an Intel facility and this CPU is "
                    + (cpu.identity().vendor().isBlank() ? "not identified" : cpu.identity().vendor()), "",
                    Cause.UNSUPPORTED);
        }
        if (name.equals("intel_bts") && linux.kpti()) {
            return DoctorCheck.warn(name, l, "absent: the kernel does not register it while KPTI is on (meltdown: "
                    + linux.meltdown().orElse("") + "); the branches event with period 1 still records"
                    + " user-space branches", "", Cause.UNSUPPORTED);
        }
        String guest = cpu != null && cpu.hypervisor().present() ? " (" + hypervisor() + " may hide it)" : "";
        return DoctorCheck.warn(name, l, "absent: the kernel found no " + facility + " on this CPU" + guest, "",
                Cause.UNSUPPORTED);
    }

    private DoctorCheck msrPmu() {
        String n = "msr_pmu";
        String l = "msr PMU";
        Optional<Pmu> pmu = linux.pmu("msr");
        if (pmu.isPresent()) {
            return DoctorCheck.ok(n, l, "registered (type " + pmu.get().type().describe()
                    + "): perf counts TSC/APERF/MPERF without /dev/cpu/N/msr (arch/x86/events/msr.c)");
        }
        return DoctorCheck.warn(n, l, "absent: perf cannot count TSC/APERF/MPERF (arch/x86/events/msr.c);"
                + " hwtool msr watch reads them through /dev/cpu/N/msr instead", "", Cause.UNSUPPORTED);
    }

    private DoctorCheck rdpmc() {
        String n = "rdpmc";
        String l = "rdpmc";
        List<Pmu> core = linux.corePmus();
        if (core.isEmpty()) {
            return DoctorCheck.warn(n, l, "not checked: no core PMU (see core PMU)", "", Cause.UNSUPPORTED);
        }
        Pmu first = core.getFirst();
        String file = first.sysfsPath() + "/rdpmc";
        return switch (first.rdpmc()) {
            case Fact.Known<Integer> k when k.value() == 0 -> DoctorCheck.warn(n, l, file
                            + " is 0: RDPMC faults in user space",
                    "echo 1 | sudo tee " + core.stream().map(p -> p.sysfsPath() + "/rdpmc")
                            .collect(Collectors.joining(" ")), Cause.UNSUPPORTED);
            case Fact.Known<Integer> k when k.value() >= 2 -> DoctorCheck.ok(n, l, file + " is " + k.value()
                    + ": RDPMC allowed for every process");
            case Fact.Known<Integer> k -> DoctorCheck.ok(n, l, file + " is 1: RDPMC allowed while the process has"
                    + " a perf event mmap'd");
            default -> DoctorCheck.warn(n, l, "cannot tell: " + file + " is " + first.rdpmc().describe(), "", null);
        };
    }

    private DoctorCheck container() {
        String n = "container";
        String l = "container";
        LinuxFacts.Container c = linux.container();
        if (!c.detected()) {
            return DoctorCheck.ok(n, l, "none detected"
                    + (c.evidence().isEmpty() ? "" : " (" + String.join("; ", c.evidence()) + ")"));
        }
        String what = c.kind() + " (" + String.join("; ", c.evidence()) + ")";
        boolean nodes = onlineCpus().stream().anyMatch(x -> x.msr().present());
        boolean rawio = linux.credentials().has(Capability.CAP_SYS_RAWIO);
        if (nodes && rawio) {
            return DoctorCheck.ok(n, l, what + ": /dev/cpu/N/msr and CAP_SYS_RAWIO were passed in");
        }
        List<String> start = new ArrayList<>();
        if (!nodes) {
            start.add("--device=/dev/cpu");
        }
        if (!rawio) {
            start.add("--cap-add=SYS_RAWIO");
        }
        String fix = (linux.msrDriver().state().present() ? "" : "load the msr driver on the host (see msr driver); then ")
                + "start the container with " + String.join(" ", start);
        return DoctorCheck.warn(n, l, what + ": the msr driver must be loaded on the host, and /dev/cpu and"
                + " CAP_SYS_RAWIO passed in when the container starts", fix, null);
    }

    // ---- helpers ------------------------------------------------------------------------------

    private List<CpuDevices> onlineCpus() {
        List<CpuDevices> online = linux.cpus().stream().filter(CpuDevices::online).toList();
        return online.isEmpty() ? linux.cpus() : online;
    }

    private String who() {
        return linux.credentials().euid().optional().map(u -> "uid " + u).orElse("this user");
    }

    private String hypervisor() {
        return cpu.hypervisor().inSentence();
    }

    /** The lockdown forced by the kernel's build options (security/lockdown/Kconfig). */
    private Optional<String> forcedLockdown() {
        for (String o : List.of("CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY", "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY")) {
            if (linux.kernelConfig().is(o, "y") && !linux.kernelConfig().is("CONFIG_SECURITY_LOCKDOWN_LSM", "n")) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }
}
