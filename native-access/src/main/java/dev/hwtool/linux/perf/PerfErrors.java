package dev.hwtool.linux.perf;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.arch.perf.abi.PerfAttrField;
import dev.hwtool.arch.perf.abi.PerfAttrFlag;
import dev.hwtool.arch.perf.PerfBranchSample;
import dev.hwtool.arch.perf.PerfCount;
import dev.hwtool.arch.perf.abi.PerfEventAttr;
import dev.hwtool.arch.perf.abi.PerfSample;
import dev.hwtool.arch.perf.PerfType;
import dev.hwtool.bind.Errno;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.Verdicts;

import java.util.Objects;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Why a perf call failed: maps (call, errno, attr) to a {@link Cause}, a one-line message and a
 * remedy, following the checks of kernel/events/core.c (perf_event_open, perf_copy_attr,
 * perf_mmap), arch/x86/events (LBR, BTS) and the paranoid levels of Documentation/admin-guide/sysctl/kernel.rst (perf_event_paranoid). The
 * kernel's state (perf_event_paranoid, capabilities, PMUs, KPTI) is read through
 * {@link LinuxFacts} only when a failure needs it.
 */
public final class PerfErrors {

    /** The sysctl that governs unprivileged perf use (Documentation/admin-guide/sysctl/kernel.rst). */
    static final String PARANOID = "/proc/sys/kernel/perf_event_paranoid";
    static final String CAP_PERFMON = "or grant CAP_PERFMON (sudo setcap cap_perfmon=ep on the java launcher)";

    /** What lets perf_event_open through a container runtime's default seccomp profile. */
    public static final String SECCOMP_REMEDY = "start the container with --cap-add=PERFMON (Docker's default seccomp profile"
            + " then allows perf_event_open; older profiles need --cap-add=SYS_ADMIN), or with a seccomp profile that"
            + " allows perf_event_open (--security-opt seccomp=FILE)";

    private final Supplier<LinuxFacts> facts;

    public PerfErrors(Supplier<LinuxFacts> facts) {
        this.facts = Objects.requireNonNull(facts, "facts");
    }

    /** "perf_event_open(software/config 0x1, pid 0, cpu -1)". */
    static String describe(PerfEventAttr attr, int pid, int cpu) {
        return "perf_event_open(" + typeName(attr.type()) + " config 0x" + Long.toHexString(attr.config())
                + (attr.samplePeriod() != 0 ? (attr.has(PerfAttrFlag.FREQ) ? ", freq " : ", period ") + attr.samplePeriod() : "")
                + ", pid " + pid + ", cpu " + cpu + ")";
    }

    private static String typeName(int type) {
        return switch (type) {
            case PerfType.HARDWARE -> "hardware";
            case PerfType.SOFTWARE -> "software";
            case PerfType.TRACEPOINT -> "tracepoint";
            case PerfType.HW_CACHE -> "hw_cache";
            case PerfType.RAW -> "raw";
            case PerfType.BREAKPOINT -> "breakpoint";
            default -> "type " + type;
        };
    }

    /** The failure of perf_event_open with {@code errno}. */
    public HwException open(int errno, PerfEventAttr attr, int pid, int cpu, Throwable underlying) {
        String call = describe(attr, pid, cpu) + ": " + Errno.describe(errno);
        Explained x = switch (errno) {
            case Errno.EACCES, Errno.EPERM -> denied(errno, attr, pid, cpu);
            case Errno.ENOENT -> noSuchEvent(attr);
            case Errno.ENODEV -> new Explained(Cause.UNSUPPORTED, "this CPU's PMU does not implement the event"
                    + " (or the CPU is offline)", "choose an event listed under /sys/bus/event_source/devices/*/events");
            case Errno.EOPNOTSUPP -> notSupported(attr);
            case Errno.EINVAL -> invalid(attr, pid, cpu);
            case Errno.EBUSY -> new Explained(Cause.OS_ERROR, "the PMU resource is taken: another user holds the LBR"
                    + " or BTS (x86_lbr_exclusive), or an exclusive/pinned event owns the counters",
                    "stop the other perf user (perf record -b, --call-graph lbr, intel_bts/intel_pt sessions, another"
                            + " hwtool) and retry");
            case Errno.ESRCH -> new Explained(Cause.BAD_INPUT, "there is no process " + pid, "give the pid of a running process");
            case Errno.EMFILE -> new Explained(Cause.OS_ERROR, "this process has no free file descriptors",
                    "raise the limit (ulimit -n) or close other events");
            case Errno.EOVERFLOW -> new Explained(Cause.BAD_INPUT, "sample_max_stack "
                    + attr.get(PerfAttrField.SAMPLE_MAX_STACK) + " exceeds /proc/sys/kernel/perf_event_max_stack",
                    "lower sample_max_stack or raise kernel.perf_event_max_stack");
            case Errno.E2BIG -> new Explained(Cause.UNSUPPORTED, "the kernel refused the attr's size " + attr.size(),
                    "encode the attr at a PERF_ATTR_SIZE_VERn this kernel knows");
            default -> new Explained(Cause.OS_ERROR, "", null);
        };
        return x.exception(call, underlying);
    }

    /**
     * E2BIG after size negotiation: the kernel's struct is {@code kernelSize} bytes and the attr
     * sets a field at or past it, which this kernel would not see.
     */
    public HwException attrTooLarge(PerfEventAttr attr, int pid, int cpu, int kernelSize, int firstNonZero) {
        String field = fieldAt(firstNonZero);
        return new HwException(Cause.UNSUPPORTED, describe(attr, pid, cpu) + ": E2BIG: this kernel's perf_event_attr is "
                + kernelSize + " bytes and the attr sets " + field + " at offset " + firstNonZero + ", which it does not know",
                "leave " + field + " zero on this kernel, or run a kernel whose perf_event_attr has it");
    }

    private static String fieldAt(int offset) {
        for (PerfAttrField f : PerfAttrField.values()) {
            if (offset >= f.offset() && offset < f.end()) {
                return f.name().toLowerCase(java.util.Locale.ROOT);
            }
        }
        return "a byte";
    }

    // ---- EACCES / EPERM -------------------------------------------------------------------------

    private Explained denied(int errno, PerfEventAttr attr, int pid, int cpu) {
        LinuxFacts f = facts.get();
        String level = f.perfEventParanoid().optional().map(String::valueOf).orElse(f.perfEventParanoid().describe());
        int p = f.perfEventParanoid().orElse(2);
        boolean capable = f.credentials().perfmonCapable();
        boolean kernel = wantsKernel(attr);
        String at = "perf_event_paranoid is " + level + " (" + PARANOID + ")";
        if (capable) {
            String seccomp = f.credentials().seccomp().optional().filter(s -> s != 0)
                    .map(s -> "; seccomp mode " + s + " is active (a container's profile may block perf_event_open)")
                    .orElse("");
            return new Explained(Cause.PERMISSION_DENIED, "refused although this process has CAP_PERFMON/CAP_SYS_ADMIN,"
                    + " which passes every paranoid check: a security module (SELinux, AppArmor) or seccomp refused it" + seccomp,
                    "look for a denied perf_event in the audit log (ausearch -m avc); in a container, allow"
                            + " perf_event_open in its seccomp profile");
        }
        if (errno == Errno.EPERM && f.credentials().seccompFiltered() && attr.type() != PerfType.TRACEPOINT) {
            // The paranoid checks and the Debian level 3 answer EACCES (perf_allow_kernel, perf_allow_cpu,
            // perf_event_open's "perf_paranoid_any" patch); EPERM for an event they would not refuse
            // comes from a seccomp filter, which runs before the system call (seccomp_filter.rst):
            // Docker's default profile (moby profiles/seccomp/default.json) allows perf_event_open only
            // with CAP_SYS_ADMIN or CAP_PERFMON and answers every other call with EPERM (defaultErrnoRet 1).
            boolean paranoidAllows = p < 3 && !(kernel && p >= 2) && !(pid == -1 && p >= 1);
            return new Explained(Cause.PERMISSION_DENIED, "refused by this process's " + f.credentials().seccompDescription()
                    + ", Seccomp: 2 in /proc/self/status: perf_event_paranoid " + level
                    + (paranoidAllows ? " alone would allow it" : " would refuse it next (kernel mode or CPU-wide)")
                    + "; Docker's default seccomp profile allows perf_event_open only with CAP_PERFMON or CAP_SYS_ADMIN",
                    SECCOMP_REMEDY);
        }
        if (p >= 3) {
            return new Explained(Cause.PERMISSION_DENIED, at + ": level 3 and above (a Debian/Ubuntu patch) forbid"
                    + " perf_event_open to users without CAP_PERFMON", Verdicts.PARANOID_2 + ", " + CAP_PERFMON);
        }
        if (attr.type() == PerfType.TRACEPOINT && errno == Errno.EPERM && p >= 0) {
            return new Explained(Cause.PERMISSION_DENIED, at + ": raw tracepoint data needs perf_event_paranoid -1"
                    + " or CAP_PERFMON (perf_allow_tracepoint)", "sudo sysctl -w kernel.perf_event_paranoid=-1, " + CAP_PERFMON);
        }
        if (pid == -1 && p >= 1) {
            return new Explained(Cause.PERMISSION_DENIED, at + ": CPU-wide events (pid -1, cpu " + cpu + ") need"
                    + " perf_event_paranoid <= 0 or CAP_PERFMON (perf_allow_cpu)",
                    "monitor a task (pid 0 = this one) instead, or sudo sysctl -w kernel.perf_event_paranoid=0, " + CAP_PERFMON);
        }
        if (kernel && p >= 2) {
            return new Explained(Cause.PERMISSION_DENIED, at + ": counting or recording kernel mode (" + kernelReason(attr)
                    + ") needs perf_event_paranoid <= 1 or CAP_PERFMON (perf_allow_kernel)",
                    "set exclude_kernel (user mode only), or " + Verdicts.PARANOID_1 + ", " + CAP_PERFMON);
        }
        if (pid > 0) {
            return new Explained(Cause.PERMISSION_DENIED, at + ": monitoring process " + pid + " needs ptrace read"
                    + " access to it (ptrace_may_access; Yama's ptrace_scope may forbid it)",
                    "monitor a process of your own, or run as its owner / with CAP_SYS_PTRACE");
        }
        return new Explained(Cause.PERMISSION_DENIED, at, Verdicts.PARANOID_1 + ", " + CAP_PERFMON);
    }

    /** exclude_kernel = 0, or kernel/hv branch sampling (perf_copy_attr → perf_allow_kernel). */
    static boolean wantsKernel(PerfEventAttr attr) {
        boolean branchKernel = (attr.sampleType() & PerfSample.BRANCH_STACK) != 0
                && (attr.branchSampleType() & (PerfBranchSample.KERNEL | PerfBranchSample.HV)) != 0;
        return !attr.has(PerfAttrFlag.EXCLUDE_KERNEL) || branchKernel;
    }

    private static String kernelReason(PerfEventAttr attr) {
        return attr.has(PerfAttrFlag.EXCLUDE_KERNEL) ? "branch_sample_type has KERNEL or HV" : "exclude_kernel is 0";
    }

    // ---- ENOENT / EOPNOTSUPP / EINVAL -----------------------------------------------------------

    private Explained noSuchEvent(PerfEventAttr attr) {
        LinuxFacts f = facts.get();
        String present = f.pmus().stream().map(LinuxFacts.Pmu::name).sorted().collect(Collectors.joining(" "));
        if (PerfType.needsCorePmu(attr.type()) && f.corePmus().isEmpty()) {
            return new Explained(Cause.UNSUPPORTED, "no hardware PMU: the kernel registered no 'cpu' PMU"
                    + " (/sys/bus/event_source/devices has: " + present + "), as in a VM without a virtual PMU",
                    Verdicts.VM_HOST_PMU + "; software events (type 1) work without one");
        }
        boolean known = attr.type() <= PerfType.BREAKPOINT
                || f.pmus().stream().anyMatch(p -> p.type().optional().filter(t -> t == attr.type()).isPresent());
        if (!known) {
            return new Explained(Cause.UNSUPPORTED, "no PMU has type " + attr.type() + " (present: " + present + ")",
                    "read the type from /sys/bus/event_source/devices/PMU/type");
        }
        return new Explained(Cause.UNSUPPORTED, "the PMU does not know config 0x" + Long.toHexString(attr.config()),
                "choose an event its events/ directory lists");
    }

    /**
     * The 'branches' event with period 1 is BTS on Intel (intel_pmu_has_bts_period): HARDWARE
     * BRANCH_INSTRUCTIONS or RAW 0xC4, not in frequency mode.
     */
    static boolean isBtsRequest(PerfEventAttr attr) {
        boolean branches = (attr.type() == PerfType.HARDWARE && attr.config() == PerfCount.HW_BRANCH_INSTRUCTIONS)
                || (attr.type() == PerfType.RAW && (attr.config() & 0xFFFF) == 0xC4);
        return branches && !attr.has(PerfAttrFlag.FREQ) && attr.samplePeriod() == 1;
    }

    private Explained notSupported(PerfEventAttr attr) {
        LinuxFacts f = facts.get();
        if (isBtsRequest(attr) && !attr.has(PerfAttrFlag.EXCLUDE_KERNEL)) {
            return new Explained(Cause.UNSUPPORTED, "BTS through the branches event with period 1 is only allowed for"
                    + " user mode (intel_pmu_bts_config: exclude_kernel must be set)", "set exclude_kernel");
        }
        if (isBtsRequest(attr) && attr.preciseIp() != 0) {
            return new Explained(Cause.UNSUPPORTED, "BTS refuses precise_ip " + attr.preciseIp(), "set precise_ip to 0");
        }
        if (isBtsRequest(attr)) {
            return new Explained(Cause.UNSUPPORTED, "BTS is not available: the CPU or the kernel has no DS/BTS"
                    + " (x86_pmu.bts, DTES64)", null);
        }
        if (attr.preciseIp() > 0 && !f.corePmus().isEmpty()) {
            // x86_pmu_hw_config: precise_ip above x86_pmu_max_precise() is EOPNOTSUPP
            String max = f.corePmus().getFirst().maxPrecise().optional().map(m -> "caps/max_precise is " + m)
                    .orElse("caps/max_precise " + f.corePmus().getFirst().maxPrecise().describe());
            return new Explained(Cause.UNSUPPORTED, "precise_ip " + attr.preciseIp() + " (:" + "p".repeat(attr.preciseIp())
                    + ") is more than this PMU offers (" + max + "; 0 means no PEBS)",
                    "ask for less precision (fewer :p), or none");
        }
        if ((attr.sampleType() & PerfSample.BRANCH_STACK) != 0) {
            String why = f.corePmus().isEmpty() ? "there is no hardware PMU at all"
                    : f.corePmus().getFirst().branches().optional().map(d -> "the PMU's LBR (depth " + d
                    + ") cannot filter branch_sample_type 0x" + Long.toHexString(attr.branchSampleType()))
                    .orElse("the PMU has no LBR (no caps/branches)");
            return new Explained(Cause.UNSUPPORTED, "branch-stack sampling is not supported: " + why,
                    f.corePmus().isEmpty() ? Verdicts.VM_HOST_PMU : "drop branch_sample_type bits the LBR cannot filter"
                            + " (CALL_STACK needs a call-stack LBR)");
        }
        if (attr.samplePeriod() != 0) {
            return new Explained(Cause.UNSUPPORTED, "this PMU counts but cannot sample (no overflow interrupt)",
                    "count without sample_period/sample_freq");
        }
        return new Explained(Cause.UNSUPPORTED, "the PMU does not support this event configuration", null);
    }

    private Explained invalid(PerfEventAttr attr, int pid, int cpu) {
        StringBuilder hints = new StringBuilder();
        if ((attr.flags() >>> PerfAttrFlag.RESERVED_FROM) != 0) {
            hints.append("; reserved flag bits are set");
        }
        if (Long.compareUnsigned(attr.sampleType(), PerfSample.MAX) >= 0) {
            hints.append("; sample_type has bits beyond this kernel's PERF_SAMPLE_MAX");
        }
        if ((attr.sampleType() & PerfSample.BRANCH_STACK) != 0
                && (attr.branchSampleType() & ~PerfBranchSample.PLM_ALL) == 0) {
            hints.append("; branch_sample_type needs a branch-type bit besides USER/KERNEL/HV");
        }
        if (isBtsRequest(attr) && !attr.has(PerfAttrFlag.EXCLUDE_KERNEL)) {
            hints.append("; BTS (branches, period 1) needs exclude_kernel");
        }
        if (attr.samplePeriod() != 0 && attr.type() > PerfType.BREAKPOINT) {
            hints.append("; dynamic PMUs such as msr count only: drop sample_period");
        }
        if (pid == -1 && cpu == -1) {
            hints.append("; pid -1 needs a cpu");
        }
        if (attr.has(PerfAttrFlag.INHERIT) && (attr.readFormat() & dev.hwtool.arch.perf.abi.PerfFormat.GROUP) != 0) {
            hints.append("; inherit with a GROUP read_format needs 6.x's inherit_thread rules");
        }
        String why = "the kernel rejected the attr as invalid (" + attr + ")" + hints;
        return new Explained(Cause.BAD_INPUT, why, "check the attr against perf_event_open(2) and this kernel's version");
    }

    // ---- mmap, ioctl, read, PMUs ----------------------------------------------------------------

    /** The failure of mmap on a perf fd: the ring of {@code dataPages} data pages, or the AUX area. */
    public HwException mmap(int errno, String what, long bytes, Throwable underlying) {
        String call = "mmap of the perf " + what + " (" + bytes + " bytes): " + Errno.describe(errno);
        Explained x = switch (errno) {
            case Errno.EPERM -> {
                LinuxFacts f = facts.get();
                String kb = f.perfEventMlockKb().optional().map(v -> v + " KiB").orElse(f.perfEventMlockKb().describe());
                yield new Explained(Cause.PERMISSION_DENIED, "more than perf_event_mlock_kb (" + kb + " per user, plus"
                        + " RLIMIT_MEMLOCK) of perf buffers would be locked",
                        "use a smaller ring, raise kernel.perf_event_mlock_kb (sudo sysctl -w"
                                + " kernel.perf_event_mlock_kb=N) or ulimit -l, or grant CAP_IPC_LOCK");
            }
            case Errno.EINVAL -> new Explained(Cause.BAD_INPUT, "perf_mmap refused the layout: the ring must be 1 + 2^n"
                    + " pages and MAP_SHARED; an AUX area must start at or after the data area, be 2^n pages, and"
                    + " match an existing AUX mapping; inherited per-task events cannot be mapped", null);
            case Errno.ENOMEM -> new Explained(Cause.OS_ERROR, "the kernel could not allocate the buffer", "use a smaller ring");
            case Errno.EBUSY -> new Explained(Cause.OS_ERROR, "the event already has a buffer of another size",
                    "map it with the size used before");
            case Errno.ENODEV, Errno.EOPNOTSUPP -> new Explained(Cause.UNSUPPORTED, "this event has no AUX area", null);
            default -> new Explained(Cause.OS_ERROR, "", null);
        };
        return x.exception(call, underlying);
    }

    /** The failure of an ioctl or read on a perf fd. */
    public HwException call(String what, int errno, Throwable underlying) {
        Explained x = switch (errno) {
            case Errno.EBADF -> new Explained(Cause.OS_ERROR, "the event is closed", null);
            case Errno.EINVAL -> new Explained(Cause.BAD_INPUT, "the kernel refused the argument", null);
            case Errno.ENOSPC -> new Explained(Cause.OS_ERROR, "the read buffer is too small for the group", null);
            default -> new Explained(Cause.OS_ERROR, "", null);
        };
        return x.exception(what + ": " + Errno.describe(errno), underlying);
    }

    /** A PMU that is not under /sys/bus/event_source/devices. */
    public HwException missingPmu(String name) {
        LinuxFacts f = facts.get();
        String present = f.pmus().stream().map(LinuxFacts.Pmu::name).sorted().collect(Collectors.joining(" "));
        String where = "/sys/bus/event_source/devices/" + name;
        if (name.equals("intel_bts")) {
            if (f.kpti()) {
                return new HwException(Cause.UNSUPPORTED, "no " + where + ": KPTI is on (meltdown: "
                        + f.meltdown().orElse("?") + "), and arch/x86/events/intel/bts.c does not register intel_bts"
                        + " under X86_FEATURE_PTI", "use BTS through the branches event with sample_period=1 and"
                        + " exclude_kernel, or boot with nopti on a CPU not affected by Meltdown");
            }
            if (f.corePmus().isEmpty()) {
                return new HwException(Cause.UNSUPPORTED, "no " + where + ": there is no hardware PMU at all (present: "
                        + present + ")", Verdicts.VM_HOST_PMU);
            }
            return new HwException(Cause.UNSUPPORTED, "no " + where + ": the CPU has no BTS with 64-bit DS (DTES64),"
                    + " or is not Intel (present: " + present + ")", null);
        }
        if (LinuxFacts.CORE_PMU_NAMES.contains(name)) {
            return new HwException(Cause.UNSUPPORTED, "no " + where + ": no hardware PMU (present: " + present + ")",
                    Verdicts.VM_HOST_PMU);
        }
        return new HwException(Cause.UNSUPPORTED, "no " + where + " (present: " + present + ")", null);
    }

    private record Explained(Cause cause, String why, String remedy) {
        HwException exception(String call, Throwable underlying) {
            return new HwException(cause, why.isEmpty() ? call : call + ": " + why, remedy, underlying);
        }
    }
}
