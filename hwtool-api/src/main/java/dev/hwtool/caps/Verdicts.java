package dev.hwtool.caps;

import dev.hwtool.api.Facility;
import dev.hwtool.api.Verdict;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.decode.AmdPerf;
import dev.hwtool.arch.decode.ArchLbr;
import dev.hwtool.arch.decode.ArchPerfmon;
import dev.hwtool.arch.decode.CpuCapabilities;
import dev.hwtool.arch.decode.LegacyLbr;
import dev.hwtool.caps.LinuxFacts.AllowWrites;
import dev.hwtool.caps.LinuxFacts.CpuDevices;
import dev.hwtool.caps.LinuxFacts.Credentials;
import dev.hwtool.caps.LinuxFacts.DeviceNode;
import dev.hwtool.caps.LinuxFacts.Lockdown;
import dev.hwtool.caps.LinuxFacts.Pmu;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Judges each {@link Facility} from what the CPU says (CPUID) and what the kernel offers
 * ({@link LinuxFacts}): a pure function. Rules cite the kernel code they mirror; every reason
 * names the facts it rests on. When several things block a facility, all of them are named
 * and the remedies are listed in the same order; a blocker nothing can fix empties the remedy.
 */
public final class Verdicts {

    public static final String MODPROBE_MSR = MissingNode.modprobe("msr");
    public static final String REBUILD_WITH_MSR = MissingNode.rebuildWith("msr");
    public static final String CONTAINER_DEVICES = MissingNode.containerDevices("msr");
    public static final String HOST_MODPROBE_AND_DEVICES = MissingNode.onTheHost(MODPROBE_MSR, "msr");
    public static final String MOUNT_DEVTMPFS = MissingNode.mountDevtmpfs("msr");
    public static final String ADD_RAWIO_TO_CONTAINER = MissingNode.containerFlag("--cap-add=SYS_RAWIO");
    public static final String RUN_AS_ROOT_RAWIO = "run as root (sudo), or sudo setcap cap_sys_rawio=ep on the java"
            + " launcher (which then needs its lib directory in /etc/ld.so.conf.d: secure-execution ignores $ORIGIN)";
    public static final String INITIAL_USER_NAMESPACE =
            "run outside a user namespace (on the host or in a rootful container): msr_open checks capable() there";
    public static final String LOCKDOWN_BOOT = "boot without lockdown: disable Secure Boot (distribution kernels lock"
            + " down under it) and remove any lockdown= kernel parameter; it cannot be lowered at runtime";
    public static final String ALLOW_WRITES_ON = "echo on | sudo tee /sys/module/msr/parameters/allow_writes"
            + " (or msr.allow_writes=on on the kernel command line)";
    public static final String PARANOID_2 = "sudo sysctl -w kernel.perf_event_paranoid=2";
    public static final String PARANOID_1 = "sudo sysctl -w kernel.perf_event_paranoid=1";
    public static final String VM_HOST_PMU = "only the VM host can give this guest a virtual PMU"
            + " (QEMU/KVM: -cpu host,pmu=on); nothing can be done inside the guest";

    /** Zen 4 LBR v2 came with Linux 6.1 (arch/x86/events/amd/lbr.c, amd_pmu_lbr_init). */
    public static final String KERNEL_AMD_LBR_V2 = "boot Linux 6.1 or later: arch/x86/events/amd/lbr.c drives the Zen 4"
            + " LBR v2 stack (amd_pmu_lbr_init, with PerfMonV2)";
    /** Zen 3 BRS came with Linux 5.19 behind CONFIG_PERF_EVENTS_AMD_BRS (arch/x86/events/amd/brs.c). */
    public static final String KERNEL_AMD_BRS = "boot Linux 5.19 or later built with CONFIG_PERF_EVENTS_AMD_BRS=y"
            + " (arch/x86/events/amd/brs.c)";
    /** The perf event BRS samples with (core.c EVENT_ATTR_STR(branch-brs), AMD_FAM19H_BRS_EVENT 0xc4). */
    public static final String BRS_RECORD = "perf record -b -e cpu/branch-brs/ -c PERIOD (PERIOD above 16; no -F)";

    private static final String BRANCHES_FALLBACK = "the `branches` event with sample_period=1 and exclude_kernel=1"
            + " records user-space branches through the kernel's DS buffer (intel_pmu_has_bts_period)";

    private Verdicts() {
    }

    /** One verdict per facility, in {@link Facility} order. */
    public static List<Verdict> assess(CpuCapabilities cpu, LinuxFacts linux) {
        return List.of(cpuid(cpu, linux), msrRead(cpu, linux), msrWrite(cpu, linux), lbr(cpu, linux),
                bts(cpu, linux), counters(cpu, linux), rdpmc(cpu, linux), pebs(cpu, linux));
    }

    /**
     * As {@link #assess(CpuCapabilities, LinuxFacts)}, with what happened when facilities were
     * tried on this machine (the hardware backend's {@code PerfProbe}): for each probed facility
     * the probe decides {@code usable}. When the facts agree, their reason stays (it says more)
     * and the probe's outcome is appended; when they disagree, the probe's message and remedy
     * become the verdict and the facts' opinion follows as a note.
     */
    public static List<Verdict> assess(CpuCapabilities cpu, LinuxFacts linux, Map<Facility, Probe> probes) {
        return assess(cpu, linux).stream()
                .map(v -> probes.containsKey(v.facility()) ? withProbe(v, probes.get(v.facility())) : v)
                .toList();
    }

    /** One facts-based verdict judged again by its probe (see {@link #assess(CpuCapabilities, LinuxFacts, Map)}). */
    public static Verdict withProbe(Verdict facts, Probe probe) {
        String outcome = probe.failure().map(Throwable::getMessage).orElse(probe.detail());
        if (probe.usable() == facts.usable()) {
            return new Verdict(facts.facility(), facts.usable(), facts.cause(), facts.message() + "; tried here: "
                    + outcome, facts.remedy());
        }
        if (!probe.usable()) {
            String remedy = probe.failure().flatMap(HwException::remedy).orElse("");
            Cause cause = probe.failure().map(HwException::cause).orElse(Cause.UNSUPPORTED);
            return new Verdict(facts.facility(), false, Optional.of(cause), outcome
                    + "; the facts alone predicted it usable: " + facts.message(), remedy);
        }
        return new Verdict(facts.facility(), true, Optional.empty(), "works when tried here: " + outcome
                + "; the facts alone predicted otherwise: " + facts.message(), "");
    }

    // ---- CPUID --------------------------------------------------------------------------------

    static Verdict cpuid(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.CPUID);
        Optional<String> machine = linux.machine().optional();
        if (machine.isPresent() && !isX86(machine.get())) {
            a.block(Cause.UNSUPPORTED, "the kernel runs on " + machine.get() + ": CPUID is an x86 instruction", "");
        } else if (cpu.identity().vendor().isBlank()) {
            a.block(Cause.UNSUPPORTED, "no CPUID answers (empty vendor string): not an x86 CPU", "");
        }
        List<CpuDevices> online = onlineCpus(linux);
        long nodes = online.stream().filter(c -> c.cpuid().present()).count();
        long readable = online.stream().filter(c -> c.cpuid().readable()).count();
        if (nodes == 0) {
            a.note("/dev/cpu/N/cpuid absent (cpuid driver " + describe(linux.cpuidDriver())
                    + "); the instruction does not need it");
        } else if (readable == 0) {
            DeviceNode n = firstPresent(online, CpuDevices::cpuid);
            a.note(n.path() + " is " + n.modeAndOwner() + " and not readable by " + who(linux)
                    + "; the instruction does not need it");
        } else {
            a.note("/dev/cpu/N/cpuid readable on " + readable + " of " + online.size() + " online CPUs");
        }
        if (cpu.hypervisor().present()) {
            a.note("under " + hypervisorName(cpu) + ", every CPUID exits to it (a VM exit per call)");
        }
        return a.verdict("the CPUID instruction runs in user space (vendor " + cpu.identity().vendor()
                + ", max leaf 0x" + Integer.toHexString(cpu.identity().maxBasicLeaf()) + ")");
    }

    private static boolean isX86(String machine) {
        return machine.equals("x86_64") || machine.equals("x86") || machine.matches("i[3-6]86");
    }

    // ---- MSR read / write ---------------------------------------------------------------------

    static Verdict msrRead(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.MSR_READ);
        msrAccess(a, cpu, linux, false);
        return a.verdict("/dev/cpu/N/msr readable on " + count(linux, DeviceNode::readable) + " of "
                + onlineCpus(linux).size() + " online CPUs (msr driver " + describe(linux.msrDriver())
                + ") and CAP_SYS_RAWIO held");
    }

    static Verdict msrWrite(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.MSR_WRITE);
        msrAccess(a, cpu, linux, true);
        // msr_write checks lockdown first, then the write filter (arch/x86/kernel/msr.c)
        switch (linux.lockdown()) {
            case Fact.Known<Lockdown> k when k.value().forbidsMsrWrites() -> a.block(Cause.LOCKDOWN, 
                    "kernel lockdown is [" + k.value().label() + "]: msr_write refuses every write with EPERM"
                            + " (security_locked_down(LOCKDOWN_MSR)); reads still work",
                    forcedLockdown(linux).map(o -> "boot a kernel built without " + o).orElse(LOCKDOWN_BOOT));
            case Fact.Known<Lockdown> k -> a.note("lockdown none");
            default -> {
                Optional<String> forced = forcedLockdown(linux);
                if (forced.isPresent()) {
                    a.block(Cause.LOCKDOWN, "/sys/kernel/security/lockdown is " + linux.lockdownLabel() + " but "
                                    + forced.get() + "=y in " + linux.kernelConfig().source()
                                    + " locks the kernel down at boot: msr_write refuses every write with EPERM",
                            "boot a kernel built without " + forced.get());
                } else {
                    a.note("lockdown state unknown (/sys/kernel/security/lockdown " + linux.lockdownLabel()
                            + "; mount -t securityfs securityfs /sys/kernel/security shows it)");
                }
            }
        }
        if (linux.msrDriver().state().present()) {
            switch (linux.msrAllowWrites()) {
                case Fact.Known<AllowWrites> k when k.value() == AllowWrites.OFF -> a.block(Cause.WRITES_DISABLED, 
                        "msr.allow_writes=off: every write returns EPERM (filter_write)", ALLOW_WRITES_ON);
                case Fact.Known<AllowWrites> k when k.value() == AllowWrites.DEFAULT -> a.note(
                        "msr.allow_writes=default: each write logs \"msr: Write to unrecognized MSR ...\""
                                + " (rate-limited) and taints the kernel (TAINT_CPU_OUT_OF_SPEC, flag S)");
                case Fact.Known<AllowWrites> k -> a.note(
                        "msr.allow_writes=on: writes are not logged but still taint the kernel"
                                + " (TAINT_CPU_OUT_OF_SPEC, flag S)");
                case Fact.Absent<AllowWrites> x -> a.note(
                        "no msr.allow_writes parameter: a kernel before 5.9, without the write filter");
                default -> a.note("msr.allow_writes is " + linux.msrAllowWrites().describe()
                        + " (mode 0600): if it is off, writes fail with EPERM");
            }
        }
        return a.verdict("/dev/cpu/N/msr writable on " + count(linux, DeviceNode::writable) + " of "
                + onlineCpus(linux).size() + " online CPUs, CAP_SYS_RAWIO held, lockdown "
                + linux.lockdownLabel());
    }

    /** The checks msr_open makes (arch/x86/kernel/msr.c), plus the file mode and the driver's presence. */
    private static void msrAccess(Assessment a, CpuCapabilities cpu, LinuxFacts linux, boolean write) {
        if (!cpu.features().msr()) {
            a.block(Cause.UNSUPPORTED, "CPUID.01H:EDX[5] (MSR) is clear: this CPU has no RDMSR/WRMSR, msr_open returns EIO", "");
        }
        List<CpuDevices> online = onlineCpus(linux);
        boolean container = linux.container().detected();
        if (online.stream().noneMatch(c -> c.msr().present())) {
            MissingNode.Explanation x = MissingNode.explain(linux, linux.msrDriver());
            String seen = container && !linux.devCpuPresent() ? ""
                    : "/dev/cpu/N/msr absent on all " + online.size() + " online CPUs: ";
            a.block(x.cause(), seen + x.why(), x.remedy());
        } else {
            Predicate<DeviceNode> allowed = write ? DeviceNode::writable : DeviceNode::readable;
            if (online.stream().noneMatch(c -> allowed.test(c.msr()))) {
                DeviceNode n = firstPresent(online, CpuDevices::msr);
                String uid = linux.credentials().euid().optional().map(String::valueOf).orElse("$(id -u)");
                a.block(Cause.PERMISSION_DENIED, n.path() + " is " + n.modeAndOwner() + ", not " + (write ? "writable" : "readable")
                                + " by " + who(linux) + ": open fails with EACCES",
                        "run as root (sudo), or grant access: sudo setfacl -m u:" + uid + ":" + (write ? "rw" : "r")
                                + " /dev/cpu/*/msr");
            }
            List<Integer> missing = online.stream().filter(c -> !c.msr().present()).map(CpuDevices::cpu).toList();
            if (!missing.isEmpty()) {
                a.note("online CPUs " + missing + " have no msr node");
            }
        }
        Credentials creds = linux.credentials();
        if (!creds.capEff().isKnown()) {
            a.note("CAP_SYS_RAWIO unknown (/proc/self/status " + creds.capEff().describe() + ")");
        } else if (!creds.has(Capability.CAP_SYS_RAWIO)) {
            a.block(Cause.MISSING_CAPABILITY, "CapEff 0x" + Long.toHexString(creds.capEff().orElse(0L)) + " lacks CAP_SYS_RAWIO: msr_open"
                    + " returns EPERM", container ? ADD_RAWIO_TO_CONTAINER : RUN_AS_ROOT_RAWIO);
        } else if (creds.namespacedOnly()) {
            a.block(Cause.MISSING_CAPABILITY, "CAP_SYS_RAWIO is held only inside a user namespace (/proc/self/uid_map is not the initial"
                    + " map): msr_open's capable() check fails with EPERM", INITIAL_USER_NAMESPACE);
        }
        if (cpu.hypervisor().present()) {
            a.note("under " + hypervisorName(cpu) + ", MSRs it does not emulate raise #GP (EIO)");
        }
    }

    private static Optional<String> forcedLockdown(LinuxFacts linux) {
        for (String o : List.of("CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY", "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY")) {
            if (linux.kernelConfig().is(o, "y") && !linux.kernelConfig().is("CONFIG_SECURITY_LOCKDOWN_LSM", "n")) {
                return Optional.of(o);
            }
        }
        return Optional.empty();
    }

    private static long count(LinuxFacts linux, Predicate<DeviceNode> p) {
        return onlineCpus(linux).stream().filter(c -> p.test(c.msr())).count();
    }

    // ---- perf: shared rules -------------------------------------------------------------------

    /**
     * perf_event_open gates common to every perf facility: the sysctl must exist (CONFIG_PERF_EVENTS),
     * and the Debian/Android level 3 (Ubuntu 4) refuses unprivileged callers outright.
     */
    private static void perfGate(Assessment a, LinuxFacts linux) {
        Credentials creds = linux.credentials();
        switch (linux.perfEventParanoid()) {
            case Fact.Absent<Integer> x -> a.block(Cause.UNSUPPORTED, "/proc/sys/kernel/perf_event_paranoid is absent: this kernel"
                    + " has no perf events (CONFIG_PERF_EVENTS)", "");
            case Fact.Known<Integer> k when k.value() >= 3 && !creds.perfmonCapable() -> a.block(Cause.PERMISSION_DENIED, 
                    "perf_event_paranoid=" + k.value() + " (a distribution patch) refuses perf_event_open without"
                            + " CAP_PERFMON or CAP_SYS_ADMIN (EACCES)", PARANOID_2);
            case Fact.Known<Integer> k -> { }
            default -> a.note("perf_event_paranoid " + linux.perfEventParanoid().describe());
        }
        if (creds.seccompFiltered() && !creds.perfmonCapable()) {
            a.note(creds.seccompDescription() + " is active" + (linux.container().detected() ? " in this container" : "")
                    + " (Seccomp: 2 in /proc/self/status): Docker's default profile refuses perf_event_open"
                    + " without CAP_PERFMON or CAP_SYS_ADMIN (EPERM)");
        }
    }

    /** "no core PMU" with the reason that fits: a guest without a vPMU, or a CPU Linux has no driver for. */
    private static boolean requireCorePmu(Assessment a, CpuCapabilities cpu, LinuxFacts linux) {
        if (!linux.corePmus().isEmpty()) {
            return true;
        }
        String present = linux.pmus().isEmpty() ? "none" : linux.pmus().stream().map(Pmu::name)
                .collect(Collectors.joining(", "));
        String why = "no cpu PMU under /sys/bus/event_source/devices (present: " + present
                + "): the kernel registered no hardware PMU";
        if (cpu.hypervisor().present()) {
            a.block(Cause.UNSUPPORTED, why + ", as " + hypervisorName(cpu) + " gives this guest no virtual PMU", VM_HOST_PMU);
        } else {
            a.block(Cause.UNSUPPORTED, why + "; nothing to fix on this host", "");
        }
        return false;
    }

    private static int paranoid(LinuxFacts linux) {
        return linux.perfEventParanoid().orElse(2);
    }

    private static boolean kernelAllowed(LinuxFacts linux) {
        return linux.credentials().perfmonCapable() || paranoid(linux) <= 1;
    }

    private static String privilege(LinuxFacts linux) {
        Credentials c = linux.credentials();
        if (c.perfmonCapable()) {
            return c.has(Capability.CAP_PERFMON) ? "CAP_PERFMON" : "CAP_SYS_ADMIN";
        }
        return "perf_event_paranoid=" + linux.perfEventParanoid().describe();
    }

    // ---- LBR ----------------------------------------------------------------------------------

    static Verdict lbr(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.LBR_PERF);
        perfGate(a, linux);
        String hw = lbrHardware(cpu);
        if (!requireCorePmu(a, cpu, linux)) {
            return a.verdict("");
        }
        List<Pmu> withLbr = linux.corePmus().stream().filter(p -> p.branches().orElse(0) > 0).toList();
        if (withLbr.isEmpty()) {
            // caps/branches is visible only when x86_pmu.lbr_nr != 0 (events/intel/core.c lbr_is_visible)
            String base = "the " + names(linux.corePmus()) + " PMU has no LBR (caps/branches absent)";
            if (!hw.isEmpty() && cpu.hypervisor().present()) {
                a.block(Cause.UNSUPPORTED, base + " although the CPU has " + hw + ": " + hypervisorName(cpu)
                        + " does not virtualize it", VM_HOST_PMU);
            } else if (cpu.amd().present()) {
                amdNoBranchStack(a, cpu, linux, base, hw);
            } else if (!hw.isEmpty()) {
                a.block(Cause.UNSUPPORTED, base + " although the CPU has " + hw + ": this kernel does not drive LBR on this model",
                        "boot a kernel whose arch/x86/events/intel/lbr.c supports this CPU model");
            } else {
                a.block(Cause.UNSUPPORTED, base + "; nothing to fix on this host", "");
            }
            return a.verdict("");
        }
        String depths = withLbr.stream().map(p -> p.name() + " caps/branches=" + p.branches().orElse(0))
                .collect(Collectors.joining(", "));
        String scope = kernelAllowed(linux)
                ? "user and kernel branches allowed (" + privilege(linux) + ")"
                : "user-space branches of this process only at " + privilege(linux)
                        + "; kernel branches need CAP_PERFMON or " + PARANOID_1;
        if (cpu.amd().present() && cpu.amd().brs() && !cpu.amd().lbrExtV2()) {
            // brs.c amd_brs_hw_config: only AMD_FAM19H_BRS_EVENT (0xc4), sampling at a fixed
            // period above lbr_nr, and amd_brs_setup_filter: branch_sample_type exactly ANY plus
            // privilege bits. hwtool lbr record samples `branches` with HW_INDEX | TYPE_SAVE
            // (RecordingAttrs.LBR_EXTRA_BITS), which that refuses with EINVAL.
            a.block(Cause.UNSUPPORTED, "the " + names(linux.corePmus()) + " PMU drives Zen 3's branch sampling (BRS,"
                    + " arch/x86/events/amd/brs.c): " + depths + " (" + hw + "), but only for the branch-brs event"
                    + " (retired taken branches, 0xc4) at a fixed period above 16, all branches, no other"
                    + " branch-sample bits (amd_brs_hw_config, amd_brs_setup_filter); hwtool lbr record samples"
                    + " `branches` with HW_INDEX and TYPE_SAVE, which that refuses (EINVAL)",
                    "record with perf: " + BRS_RECORD + " -- CMD, then perf report --branch-stack");
            return a.verdict("");
        }
        if (cpu.amd().present()) {
            return a.verdict(amdBranchStackWorks(cpu, depths, hw) + "; " + scope);
        }
        a.note("LBR and BTS users exclude each other (EBUSY)");
        return a.verdict("perf branch-stack sampling works: " + depths + (hw.isEmpty() ? "" : " (" + hw + ")")
                + "; " + scope);
    }

    /**
     * An AMD CPU whose core PMU shows no caps/branches. Linux drives two branch recorders on AMD:
     * the Zen 4 LBR v2 stack (arch/x86/events/amd/lbr.c: amd_pmu_lbr_init needs PerfMonV2 and
     * X86_FEATURE_AMD_LBR_V2, depth CPUID Fn8000_0022_EBX[9:4]) and Zen 3's branch sampling
     * (brs.c: amd_brs_detect needs X86_FEATURE_BRS on family 19h, 16 entries). Either sets
     * x86_pmu.lbr_nr, which caps/branches shows.
     */
    private static void amdNoBranchStack(Assessment a, CpuCapabilities cpu, LinuxFacts linux, String base, String hw) {
        AmdPerf amd = cpu.amd();
        if (amd.lbrExtV2() && !amd.perfMonV2()) {
            a.block(Cause.UNSUPPORTED, base + ": CPUID Fn8000_0022_EAX[1] (LbrExtV2) is set but EAX[0] (PerfMonV2)"
                    + " is clear, and amd_pmu_lbr_init drives LBR v2 only with PerfMonV2; nothing to fix on this host", "");
        } else if (amd.lbrExtV2()) {
            a.block(Cause.UNSUPPORTED, base + " although the CPU has " + hw + ": this kernel does not drive AMD's LBR v2",
                    KERNEL_AMD_LBR_V2);
        } else if (!hw.isEmpty()) {
            String config = linux.kernelConfig().get("CONFIG_PERF_EVENTS_AMD_BRS")
                    .map(v -> " (CONFIG_PERF_EVENTS_AMD_BRS=" + v + " in " + linux.kernelConfig().source() + ")")
                    .orElse(" (built without CONFIG_PERF_EVENTS_AMD_BRS, or older than Linux 5.19)");
            a.block(Cause.UNSUPPORTED, base + " although the CPU has " + hw + ": this kernel does not drive BRS" + config,
                    KERNEL_AMD_BRS);
        } else {
            a.block(Cause.UNSUPPORTED, base + ": this AMD CPU has no branch stack Linux drives (Zen 3's BRS is"
                    + " CPUID Fn8000_0008_EBX[31] on family 19h, Zen 4's LBR v2 Fn8000_0022_EAX[1]); nothing to fix"
                    + " on this host", "");
        }
    }

    /** The usable AMD branch stack and how perf reaches it. */
    private static String amdBranchStackWorks(CpuCapabilities cpu, String depths, String hw) {
        AmdPerf amd = cpu.amd();
        if (amd.lbrExtV2()) {
            return "perf branch-stack sampling works through AMD's LBR v2 (arch/x86/events/amd/lbr.c): " + depths
                    + " (" + hw + "); perf record -b with any sampling event, branch filters in LBR_SELECT,"
                    + " no call-stack mode (lbr_select_map)";
        }
        return "perf branch-stack sampling works: " + depths;
    }

    private static String lbrHardware(CpuCapabilities cpu) {
        AmdPerf amd = cpu.amd();
        if (amd.lbrExtV2()) {
            return "LBR v2, CPUID Fn8000_0022_EAX[1] LbrExtV2, depth " + amd.lbrV2Depth() + " (EBX[9:4])";
        }
        if (amd.brs() && cpu.identity().family() == 0x19) {
            return "BRS, CPUID Fn8000_0008_EBX[31], " + AmdPerf.BRS_DEPTH + " entries on family 19h";
        }
        ArchLbr arch = cpu.archLbr();
        if (arch.supported()) {
            return "architectural LBR, depths " + arch.depths();
        }
        LegacyLbr legacy = cpu.legacyLbr();
        if (legacy.present()) {
            return "LBR depth " + legacy.depth() + " from the " + legacy.source();
        }
        return "";
    }

    // ---- BTS ----------------------------------------------------------------------------------

    static Verdict bts(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.BTS_PERF);
        perfGate(a, linux);
        String guest = cpu.hypervisor().present() ? " (" + hypervisorName(cpu) + " does not expose it to guests)" : "";
        if (!cpu.identity().isIntel()) {
            String amd = cpu.amd().present()
                    ? ": AMD has no debug store (no DS area, CPUID.01H:EDX[21] reserved), so no branch trace store;"
                      + " AMD's branch records are LBR v2 (Zen 4+) and BRS (Zen 3) through perf record -b, judged under"
                      + " " + Facility.LBR_PERF.label()
                    : "";
            a.block(Cause.UNSUPPORTED, "BTS is an Intel facility; this CPU is " + vendorName(cpu) + amd
                    + "; nothing to fix on this host", "");
            return a.verdict("");
        }
        if (!cpu.features().ds()) {
            a.block(Cause.UNSUPPORTED, "CPUID.01H:EDX[21] (DS) is clear: no debug store, so no BTS" + guest, "");
        } else if (!cpu.features().dtes64()) {
            a.block(Cause.UNSUPPORTED, "CPUID.01H:ECX[2] (DTES64) is clear: Linux drives only the 64-bit DS layout"
                    + " (intel_ds_init)" + guest, "");
        }
        if (!requireCorePmu(a, cpu, linux)) {
            return a.verdict("");
        }
        Optional<Pmu> intelBts = linux.pmu("intel_bts");
        if (intelBts.isPresent()) {
            String type = intelBts.get().type().describe();
            if (kernelAllowed(linux)) {
                return a.verdict("the intel_bts PMU (type " + type + ") records branches into an AUX buffer ("
                        + privilege(linux) + ")");
            }
            return a.verdict("intel_bts (type " + type + ") refuses unprivileged users at " + privilege(linux)
                    + " (BTS leaks kernel addresses: bts_event_init → EACCES; CAP_PERFMON or " + PARANOID_1
                    + " lifts it), but " + BRANCHES_FALLBACK);
        }
        if (linux.kpti()) {
            return a.verdict("intel_bts is not registered because KPTI is on (bts_init returns -ENODEV under"
                    + " X86_FEATURE_PTI; meltdown: " + linux.meltdown().orElse("") + "), but " + BRANCHES_FALLBACK);
        }
        a.block(Cause.UNSUPPORTED, "intel_bts is not registered although CPUID reports DS and DTES64 and KPTI is off: the kernel"
                + " found BTS unavailable (IA32_MISC_ENABLE[11], so x86_pmu.bts = 0), and the `branches`"
                + " sample_period=1 event fails the same way (EOPNOTSUPP)", "");
        return a.verdict("");
    }

    // ---- hardware counters --------------------------------------------------------------------

    static Verdict counters(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.HW_COUNTERS);
        perfGate(a, linux);
        if (!requireCorePmu(a, cpu, linux)) {
            return a.verdict("");
        }
        String pmus = linux.corePmus().stream().map(p -> p.name() + " (type " + p.type().describe() + ")")
                .collect(Collectors.joining(", "));
        ArchPerfmon pm = cpu.archPerfmon();
        String arch = pm.present()
                ? "; arch perfmon v" + pm.version() + ": " + pm.gpCounters() + " GP counters x " + pm.gpWidth()
                  + " bits, " + pm.fixedCounters() + " fixed"
                : "";
        AmdPerf amd = cpu.amd();
        if (amd.present()) {
            // AMD has no CPUID leaf 0AH: the count is Fn8000_0022_EBX[3:0] with PerfMonV2, six with
            // PerfCtrExtCore, else the four legacy counters; all 48 bits (amd/core.c).
            arch = "; AMD core counters: " + amd.coreCounters() + " x 48 bits ("
                    + (amd.perfMonV2() ? "PerfMonV2, CPUID Fn8000_0022_EBX[3:0]"
                       : amd.perfCtrExtCore() ? "PerfCtrExtCore, MSR_F15H_PERF_CTL0.. at C001_0200H"
                       : "legacy MSR_K7_EVNTSEL0..3 at C001_0000H") + ")";
        }
        if (cpu.identity().isIntel() && !pm.present()) {
            a.note("CPUID.0AH reports no architectural perfmon (version 0)");
        }
        int p = paranoid(linux);
        String scope;
        if (linux.credentials().perfmonCapable() || p <= 0) {
            scope = "this process, the kernel and whole CPUs may be counted (" + privilege(linux) + ")";
        } else if (p == 1) {
            scope = "this process including kernel mode; CPU-wide counting needs CAP_PERFMON or "
                    + "sudo sysctl -w kernel.perf_event_paranoid=0";
        } else {
            scope = "this process in user space only (exclude_kernel=1) at " + privilege(linux)
                    + "; kernel mode needs CAP_PERFMON or " + PARANOID_1;
        }
        return a.verdict("PMU " + pmus + arch + "; " + scope);
    }

    // ---- rdpmc --------------------------------------------------------------------------------

    static Verdict rdpmc(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.RDPMC);
        if (!requireCorePmu(a, cpu, linux)) {
            return a.verdict("");
        }
        // the rdpmc attribute (arch/x86/events/core.c set_attr_rdpmc): 0 never, 1 while mmap'd, 2 always
        List<Pmu> core = linux.corePmus();
        Pmu first = core.getFirst();
        String files = core.stream().map(p -> p.sysfsPath() + "/rdpmc").collect(Collectors.joining(" "));
        switch (first.rdpmc()) {
            case Fact.Known<Integer> k when k.value() == 0 -> {
                a.block(Cause.UNSUPPORTED, first.sysfsPath() + "/rdpmc is 0: RDPMC faults in user space (CR4.PCE clear)",
                        "echo 1 | sudo tee " + files);
                perfGate(a, linux); // at 1, RDPMC still needs a perf event of this process mmap'd
                return a.verdict("");
            }
            case Fact.Known<Integer> k when k.value() >= 2 -> {
                return a.verdict(first.sysfsPath() + "/rdpmc is " + k.value()
                        + ": RDPMC is allowed for every process on every CPU (CR4.PCE always set)");
            }
            case Fact.Known<Integer> k -> {
                perfGate(a, linux);
                return a.verdict(first.sysfsPath() + "/rdpmc is 1: RDPMC works only while this process has a"
                        + " perf event mmap'd (check cap_user_rdpmc and index in its page; RDPMC without one"
                        + " faults and kills the JVM)");
            }
            default -> {
                a.block(Cause.UNSUPPORTED, first.sysfsPath() + "/rdpmc is " + first.rdpmc().describe()
                        + ": cannot tell whether user-space RDPMC is allowed", "");
                return a.verdict("");
            }
        }
    }

    // ---- PEBS ---------------------------------------------------------------------------------

    /**
     * Precise sampling through PEBS. The kernel serves precise_ip above 0 on Intel only through
     * PEBS and refuses a level above x86_pmu_max_precise() with EOPNOTSUPP
     * (arch/x86/events/core.c, x86_pmu_hw_config); that maximum is caps/max_precise of the core
     * PMU, 0 when PEBS is not active (x86_pmu.pebs is cleared by intel_ds_init without
     * X86_FEATURE_PEBS, which init_intel sets only when CPUID reports DS and IA32_MISC_ENABLE[12]
     * "PEBS unavailable" is clear: arch/x86/kernel/cpu/intel.c).
     */
    static Verdict pebs(CpuCapabilities cpu, LinuxFacts linux) {
        Assessment a = new Assessment(Facility.PEBS_PERF);
        perfGate(a, linux);
        String guest = cpu.hypervisor().present() ? " (" + hypervisorName(cpu) + " does not expose it to this guest)" : "";
        if (cpu.amd().present()) {
            return ibs(a, cpu, linux);
        }
        if (!cpu.identity().isIntel()) {
            a.block(Cause.UNSUPPORTED, "PEBS is an Intel facility; this CPU is " + vendorName(cpu)
                    + "; nothing to fix on this host", "");
            return a.verdict("");
        }
        if (!cpu.features().ds()) {
            a.block(Cause.UNSUPPORTED, "CPUID.01H:EDX[21] (DS) is clear: PEBS writes its records through the debug store, so no PEBS"
                    + guest, cpu.hypervisor().present() ? VM_HOST_PMU : "");
        }
        if (!requireCorePmu(a, cpu, linux)) {
            return a.verdict("");
        }
        List<Pmu> core = linux.corePmus();
        List<Pmu> precise = core.stream().filter(p -> p.maxPrecise().orElse(0) > 0).toList();
        boolean known = core.stream().allMatch(p -> p.maxPrecise().optional().isPresent());
        if (precise.isEmpty() && known) {
            a.block(Cause.UNSUPPORTED, "the " + names(core) + " PMU's caps/max_precise is 0: the kernel did not enable PEBS"
                    + (cpu.hypervisor().present() ? guest : " (IA32_MISC_ENABLE[12] reports PEBS unavailable, or"
                    + " this kernel does not drive PEBS on this model)"),
                    cpu.hypervisor().present() ? VM_HOST_PMU : "");
            return a.verdict("");
        }
        if (precise.isEmpty()) {
            a.note("caps/max_precise " + core.getFirst().maxPrecise().describe() + ": the level cannot be read");
            return a.verdict("the core PMU is registered and CPUID reports DS");
        }
        String levels = precise.stream().map(p -> p.name() + " up to :" + "p".repeat(Math.min(3,
                p.maxPrecise().orElse(0))) + " (caps/max_precise=" + p.maxPrecise().orElse(0) + ")")
                .collect(Collectors.joining(", "));
        String scope = kernelAllowed(linux) ? "user and kernel samples (" + privilege(linux) + ")"
                : "user-space samples of this process at " + privilege(linux) + "; kernel samples need CAP_PERFMON or "
                  + PARANOID_1;
        return a.verdict("precise sampling through PEBS: " + levels + "; " + scope);
    }

    /**
     * Precise sampling on AMD: PEBS is Intel's; Linux serves precise_ip above 0 on AMD through
     * IBS. amd_pmu_hw_config (arch/x86/events/amd/core.c) hands a precise event to IBS when
     * get_ibs_caps() is non-zero ("pass precise event sampling to ibs"), and ibs.c registers the
     * ibs_fetch and ibs_op PMUs when CPUID Fn8000_0001_ECX[10] (X86_FEATURE_IBS) is set
     * (amd_ibs_init); IBS's capabilities are CPUID Fn8000_001B_EAX.
     */
    private static Verdict ibs(Assessment a, CpuCapabilities cpu, LinuxFacts linux) {
        String pebs = "PEBS is an Intel facility; this CPU is " + vendorName(cpu) + ": its precise sampling is IBS";
        if (!cpu.amd().ibs()) {
            String why = cpu.hypervisor().present()
                    ? " (" + hypervisorName(cpu) + " does not expose IBS to this guest; a virtual PMU does not include it)"
                    : " (this AMD CPU has none)";
            a.block(Cause.UNSUPPORTED, pebs + ", and CPUID Fn8000_0001_ECX[10] (IBS) is clear" + why
                    + "; nothing to fix on this host", "");
            return a.verdict("");
        }
        Optional<Pmu> op = linux.pmu("ibs_op");
        Optional<Pmu> fetch = linux.pmu("ibs_fetch");
        if (op.isEmpty()) {
            String present = linux.pmus().isEmpty() ? "none" : names(linux.pmus());
            boolean noAmd = linux.kernelConfig().is("CONFIG_CPU_SUP_AMD", "n");
            a.block(Cause.UNSUPPORTED, pebs + ", and CPUID Fn8000_0001_ECX[10] (IBS) is set, but no ibs_op PMU under"
                    + " /sys/bus/event_source/devices (present: " + present + ")"
                    + (noAmd ? ": this kernel is built without CONFIG_CPU_SUP_AMD, so arch/x86/events/amd/ibs.c is absent"
                       : ": the kernel did not register IBS (arch/x86/events/amd/ibs.c amd_ibs_init)"),
                    noAmd ? "boot a kernel built with CONFIG_CPU_SUP_AMD=y" : "");
            return a.verdict("");
        }
        String pmus = "ibs_op (type " + op.get().type().describe() + ")"
                + fetch.map(f -> " and ibs_fetch (type " + f.type().describe() + ")").orElse("");
        // IBS cannot filter by privilege in hardware: its PMUs carried PERF_PMU_CAP_NO_EXCLUDE, so the
        // perf core refuses any exclude_* flag with EINVAL, until ibs.c learnt to drop samples by
        // privilege in its interrupt handler. At paranoid 2 an unprivileged event must exclude the
        // kernel, so on such kernels it fails.
        String scope = kernelAllowed(linux) ? "user and kernel samples (" + privilege(linux) + ")"
                : "user-space samples only at " + privilege(linux) + ", which need exclude_kernel: kernels whose"
                  + " IBS PMUs still carry PERF_PMU_CAP_NO_EXCLUDE refuse that (EINVAL); CAP_PERFMON or "
                  + PARANOID_1 + " avoids it";
        return a.verdict("precise sampling through IBS (PEBS is Intel's): " + pmus + " registered; a precise event"
                + " at :p or :pp (:ppp is EOPNOTSUPP) such as cycles:pp is handed to ibs_op"
                + " (arch/x86/events/amd/core.c amd_pmu_hw_config), or record ibs_op// and ibs_fetch// directly"
                + " (CPUID Fn8000_001B_EAX = 0x" + Integer.toHexString(cpu.amd().ibsFeatures()) + "); " + scope);
    }

    // ---- helpers ------------------------------------------------------------------------------

    private static List<CpuDevices> onlineCpus(LinuxFacts linux) {
        List<CpuDevices> online = linux.cpus().stream().filter(CpuDevices::online).toList();
        return online.isEmpty() ? linux.cpus() : online;
    }

    private static DeviceNode firstPresent(List<CpuDevices> cpus, Function<CpuDevices, DeviceNode> node) {
        return cpus.stream().map(node).filter(DeviceNode::present).findFirst().orElseThrow();
    }

    private static String who(LinuxFacts linux) {
        return linux.credentials().euid().optional().map(u -> "uid " + u).orElse("this user");
    }

    private static String describe(LinuxFacts.Driver d) {
        return switch (d.state()) {
            case MODULE_LOADED -> "loaded as a module";
            case BUILT_IN -> "built in";
            case MODULE_NOT_LOADED -> "not loaded";
            case NOT_BUILT -> "not built";
            case UNKNOWN -> "state unknown";
        };
    }

    private static String names(List<Pmu> pmus) {
        return pmus.stream().map(Pmu::name).collect(Collectors.joining("/"));
    }

    private static String hypervisorName(CpuCapabilities cpu) {
        return cpu.hypervisor().inSentence();
    }

    private static String vendorName(CpuCapabilities cpu) {
        String v = cpu.identity().vendor();
        return v.isBlank() ? "not identified" : v;
    }

    /** Collects blockers (each with its remedy, "" when nothing helps) and notes for one facility. */
    private static final class Assessment {
        private final Facility facility;
        private final List<String> blockers = new ArrayList<>();
        private final Set<String> remedies = new LinkedHashSet<>();
        private final List<String> notes = new ArrayList<>();
        private boolean hopeless;
        /** The first blocker's cause: the verdict's. */
        private Cause cause;

        Assessment(Facility facility) {
            this.facility = facility;
        }

        void block(Cause cause, String reason, String remedy) {
            if (blockers.isEmpty()) {
                this.cause = cause;
            }
            blockers.add(reason);
            if (remedy.isEmpty()) {
                hopeless = true;
            } else {
                remedies.add(remedy);
            }
        }

        void note(String text) {
            notes.add(text);
        }

        /** The verdict: blocked → the blockers' reasons; usable → {@code usableReason}; notes follow. */
        Verdict verdict(String usableReason) {
            List<String> parts = new ArrayList<>(blockers.isEmpty() ? List.of(usableReason) : blockers);
            parts.addAll(notes);
            String reason = String.join("; ", parts);
            if (blockers.isEmpty()) {
                return new Verdict(facility, true, Optional.empty(), reason, "");
            }
            // two blockers may each ask for the container to be restarted: one clause with both flags
            return new Verdict(facility, false, Optional.of(cause), reason,
                    hopeless ? "" : String.join("; ", MissingNode.mergeContainerStarts(remedies)));
        }
    }
}
