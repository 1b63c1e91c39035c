package dev.hwtool.linux;

import dev.hwtool.api.Cause;
import dev.hwtool.caps.Capability;
import dev.hwtool.caps.Fact;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.AllowWrites;
import dev.hwtool.caps.LinuxFacts.CpuDevices;
import dev.hwtool.caps.LinuxFacts.Credentials;
import dev.hwtool.caps.LinuxFacts.Lockdown;
import dev.hwtool.caps.MissingNode;
import dev.hwtool.caps.Verdicts;
import dev.hwtool.bind.Errno;
import dev.hwtool.io.CpuList;
import dev.hwtool.linux.MsrAccessException.Operation;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Why a call on {@code /dev/cpu/N/msr} failed: maps (call, errno, CPU, MSR) to a {@link Cause},
 * a one-line message and a remedy, following the checks arch/x86/kernel/msr.c makes. One errno
 * can have several causes (EPERM: missing CAP_SYS_RAWIO on open, lockdown or the write filter on
 * write); the kernel's own files, read into {@link LinuxFacts} when a failure needs them, tell
 * them apart.
 */
final class MsrErrors {

    /** What was asked: a read, or a write of {@code value}. */
    record Request(int cpu, int msr, boolean write, long value) {

        static Request read(int cpu, int msr) {
            return new Request(cpu, msr, false, 0);
        }

        static Request write(int cpu, int msr, long value) {
            return new Request(cpu, msr, true, value);
        }

        /** msr-tools' wording: "CPU 0 cannot read MSR 0x00000010", "CPU 0 cannot set MSR 0x... to 0x...". */
        String failed() {
            return write
                    ? String.format("CPU %d cannot set MSR 0x%08x to 0x%016x", cpu, msr, value)
                    : String.format("CPU %d cannot read MSR 0x%08x", cpu, msr);
        }
    }

    private final Path devRoot;
    private final Path sysfsRoot;
    private final Supplier<LinuxFacts> facts;

    /**
     * @param devRoot   where the nodes live: {@code <devRoot>/cpu/N/msr}
     * @param sysfsRoot where sysfs is mounted, for the online CPUs and the remedy paths
     * @param facts     reads the kernel's state; called only for failures that depend on it
     */
    MsrErrors(Path devRoot, Path sysfsRoot, Supplier<LinuxFacts> facts) {
        this.devRoot = Objects.requireNonNull(devRoot, "devRoot");
        this.sysfsRoot = Objects.requireNonNull(sysfsRoot, "sysfsRoot");
        this.facts = Objects.requireNonNull(facts, "facts");
    }

    /** {@code <devRoot>/cpu/<cpu>/msr}, the node msr.c creates for each CPU (msr_devnode). */
    static Path node(Path devRoot, int cpu) {
        return devRoot.resolve("cpu").resolve(Integer.toString(cpu)).resolve("msr");
    }

    /** The failure of {@code op} with {@code errno} while serving {@code r}. */
    MsrAccessException of(Request r, Operation op, int errno, Throwable underlying) {
        Path node = node(devRoot, r.cpu());
        String prefix = r.failed() + ": " + op.call() + " " + node + ": " + Errno.describe(errno);
        Explained x = switch (errno) {
            case Errno.ENOENT -> missingNode(r.cpu(), node);
            case Errno.ENXIO -> noSuchCpu(r.cpu(), "CPU " + r.cpu() + " is offline or does not exist");
            case Errno.EACCES -> permissionDenied(r);
            // may_open: a write open on a read-only mount (reads open O_RDONLY and never see it)
            case Errno.EROFS -> new Explained(Cause.OS_ERROR, node + " is on a read-only mount: it can be read"
                    + " but not written", "to write, give the node on a read-write mount (a container: --device "
                    + devRoot.resolve("cpu/" + r.cpu() + "/msr") + " rather than a read-only bind mount)");
            case Errno.EPERM -> switch (op) {
                case OPEN -> missingCapability();
                case PWRITE -> writeRefused();
                case PREAD -> new Explained(Cause.OS_ERROR, "", null);
            };
            case Errno.EIO -> op == Operation.OPEN
                    ? new Explained(Cause.UNSUPPORTED, "CPU " + r.cpu() + " has no MSRs (CPUID.01H:EDX[5] is clear):"
                    + " msr_open refuses it", null)
                    : registerFault(r, op, node);
            default -> new Explained(Cause.OS_ERROR, "", null);
        };
        // a #GP is about the register, not the call: its text leads with the fault (as rdmsr's does)
        String message = x.cause() == Cause.REGISTER_FAULT ? x.why()
                : x.why().isEmpty() ? prefix : prefix + ": " + x.why();
        return new MsrAccessException(x.cause(), message, x.remedy(), op, errno, r.cpu(), r.msr(), node, underlying);
    }

    private record Explained(Cause cause, String why, String remedy) {
    }

    // ---- ENOENT and ENXIO: the node or the CPU is not there ------------------------------------

    /**
     * ENOENT: the node is missing. A CPU that is not online has none; for an online one,
     * {@link MissingNode} tells a driver that is not there from nodes that are not in this /dev.
     */
    private Explained missingNode(int cpu, Path node) {
        Path cpuDir = node.getParent();
        boolean cpuDirPresent = Files.isDirectory(cpuDir);
        if (!cpuDirPresent) {
            Optional<List<Integer>> online = online();
            if (online.isEmpty() || !online.get().contains(cpu)) {
                return noSuchCpu(cpu, "there is no " + cpuDir + " and CPU " + cpu + " is not online");
            }
        }
        LinuxFacts f = facts.get();
        MissingNode.Explanation x = MissingNode.forCpu(f, f.msrDriver(), cpu, cpuDir, cpuDirPresent);
        return new Explained(x.cause(), x.why(), x.remedy());
    }

    /**
     * msr_open: {@code cpu >= nr_cpu_ids || !cpu_online(cpu)} gives ENXIO; drivers/base/cpu.c
     * registers /sys/devices/system/cpu/cpuN for every present CPU, so that directory tells an
     * offline CPU (which can be brought online) from one that does not exist.
     */
    private Explained noSuchCpu(int cpu, String why) {
        Optional<List<Integer>> online = online();
        String list = online.map(CpuList::format).orElse("unknown");
        Path cpuDir = sysfsRoot.resolve("devices/system/cpu/cpu" + cpu);
        String choose = "choose one of the online CPUs (" + list + ")";
        String remedy = cpu >= 0 && Files.isDirectory(cpuDir)
                ? "echo 1 | sudo tee " + cpuDir.resolve("online") + ", or " + choose
                : choose;
        return new Explained(Cause.NO_SUCH_CPU, why + " (online: " + list + ")", remedy);
    }

    private Optional<List<Integer>> online() {
        try {
            return Optional.of(CpuList.online(sysfsRoot));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    // ---- EACCES and EPERM: who may do what --------------------------------------------------------

    /** EACCES comes from the node's file mode (VFS may_open), before msr_open runs. */
    private Explained permissionDenied(Request r) {
        LinuxFacts f = facts.get();
        String what = r.write() ? "write" : "read";
        String why = nodeOf(f, r.cpu()).map(m -> "mode " + m + " does not let " + who(f) + " " + what + " it")
                .orElse("the file mode does not let " + who(f) + " " + what + " it");
        return new Explained(Cause.PERMISSION_DENIED, why, accessRemedy(f, r.write()));
    }

    /**
     * Both gates of msr_open: the file mode and capable(CAP_SYS_RAWIO). Granting file access alone
     * is not enough, and a capability set on the java launcher makes it a secure-execution binary
     * that ignores $ORIGIN (ld.so(8)), hence the ld.so.conf.d caveat.
     */
    private static String accessRemedy(LinuxFacts f, boolean write) {
        String uid = f.credentials().euid().optional().map(String::valueOf).orElse("$(id -u)");
        String rights = write ? "rw" : "r";
        return "run as root (sudo), or grant both file access (sudo setfacl -m u:" + uid + ":" + rights
                + " /dev/cpu/*/msr) and CAP_SYS_RAWIO (sudo setcap cap_sys_rawio=ep on the java launcher, which then"
                + " ignores $ORIGIN: list its lib directory in /etc/ld.so.conf.d)";
    }

    /** msr_open: {@code if (!capable(CAP_SYS_RAWIO)) return -EPERM;} — checked in the initial user namespace. */
    private Explained missingCapability() {
        LinuxFacts f = facts.get();
        Credentials c = f.credentials();
        String need = "msr_open requires CAP_SYS_RAWIO";
        if (c.capEff().isKnown() && !c.has(Capability.CAP_SYS_RAWIO)) {
            return new Explained(Cause.MISSING_CAPABILITY, need + " and CapEff 0x"
                    + Long.toHexString(c.capEff().orElse(0L)) + " lacks it",
                    f.container().detected() ? Verdicts.ADD_RAWIO_TO_CONTAINER : Verdicts.RUN_AS_ROOT_RAWIO);
        }
        if (c.namespacedOnly()) {
            return new Explained(Cause.MISSING_CAPABILITY, need + " in the initial user namespace; this process is"
                    + " in a child user namespace (/proc/self/uid_map), where its capabilities do not count",
                    Verdicts.INITIAL_USER_NAMESPACE);
        }
        if (!c.capEff().isKnown()) {
            return new Explained(Cause.MISSING_CAPABILITY, need + " (CapEff in /proc/self/status is "
                    + c.capEff().describe() + ")", Verdicts.RUN_AS_ROOT_RAWIO);
        }
        return new Explained(Cause.MISSING_CAPABILITY, need + "; CapEff has it, so a security module (SELinux,"
                + " AppArmor) denied the capability", "look for a denied sys_rawio in the audit log (ausearch -m avc)");
    }

    /**
     * msr_write refuses with EPERM first under lockdown (security_locked_down(LOCKDOWN_MSR), at
     * integrity or above), then when filter_write finds msr.allow_writes=off. Reads never see
     * either. The kernel shows both states in sysfs; when one of them cannot be read, the other
     * decides if it is known to let writes through. A loaded module without the parameter
     * predates the filter (5.9) and so lets writes through.
     */
    private Explained writeRefused() {
        LinuxFacts f = facts.get();
        Fact<Lockdown> lockdown = f.lockdown();
        Fact<AllowWrites> allow = f.msrAllowWrites();
        Optional<String> forced = forcedLockdown(f);
        if (lockdown.optional().filter(Lockdown::forbidsMsrWrites).isPresent()) {
            return lockdownExplained("kernel lockdown is [" + lockdown.orElse(Lockdown.NONE).label()
                    + "] (/sys/kernel/security/lockdown)");
        }
        if (!lockdown.isKnown() && forced.isPresent()) {
            return lockdownExplained(forced.get() + "=y in " + f.kernelConfig().source() + " locks the kernel down");
        }
        if (allow.optional().filter(a -> a == AllowWrites.OFF).isPresent()) {
            return new Explained(Cause.WRITES_DISABLED, "msr.allow_writes is off"
                    + " (/sys/module/msr/parameters/allow_writes): filter_write refuses every write",
                    Verdicts.ALLOW_WRITES_ON);
        }
        boolean lockdownPermits = lockdown.isKnown();
        boolean filterPermits = allow.isKnown() || (allow.isAbsent() && f.msrDriver().state().present());
        String filterState = allow.optional().map(AllowWrites::label)
                .orElse(allow.isAbsent() && filterPermits ? "absent (no write filter)" : allow.describe());
        if (lockdownPermits && !filterPermits) {
            return new Explained(Cause.WRITES_DISABLED, "kernel lockdown is [none] and msr.allow_writes is "
                    + filterState + " (/sys/module/msr/parameters/allow_writes): the write filter is the other"
                    + " check that refuses with EPERM", Verdicts.ALLOW_WRITES_ON);
        }
        if (filterPermits && !lockdownPermits) {
            return lockdownExplained("msr.allow_writes is " + filterState + " and /sys/kernel/security/lockdown is "
                    + lockdown.describe() + ": lockdown is the other check that refuses with EPERM");
        }
        if (lockdownPermits) {
            return new Explained(Cause.OS_ERROR, "kernel lockdown is [none] and msr.allow_writes is " + filterState
                    + ", yet msr_write refused", null);
        }
        return new Explained(Cause.OS_ERROR, "kernel lockdown (/sys/kernel/security/lockdown: " + lockdown.describe()
                + ") or msr.allow_writes=off (/sys/module/msr/parameters/allow_writes: " + allow.describe()
                + ") refused it", "as root: cat /sys/kernel/security/lockdown /sys/module/msr/parameters/allow_writes");
    }

    private static Explained lockdownExplained(String why) {
        return new Explained(Cause.LOCKDOWN, why + ": raw MSR writes are restricted (kernel_lockdown(7))",
                Verdicts.LOCKDOWN_BOOT);
    }

    /** security/lockdown/Kconfig: a kernel built to force a level locks down without a command line. */
    private static Optional<String> forcedLockdown(LinuxFacts f) {
        if (f.kernelConfig().is("CONFIG_SECURITY_LOCKDOWN_LSM", "n")) {
            return Optional.empty();
        }
        return List.of("CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY", "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY")
                .stream().filter(o -> f.kernelConfig().is(o, "y")).findFirst();
    }

    // ---- EIO: #GP -------------------------------------------------------------------------------

    /**
     * rdmsr_safe_on_cpu/wrmsr_safe_on_cpu turn a #GP into EIO (arch/x86/mm/extable.c
     * ex_handler_msr). RDMSR faults on an MSR index that is reserved or not implemented; WRMSR also
     * on a value that sets a reserved bit (SDM Vol. 2B, RDMSR/WRMSR "Protected Mode Exceptions").
     */
    private static Explained registerFault(Request r, Operation op, Path node) {
        String why = r.write()
                ? "not implemented on this CPU, or the value sets a reserved bit"
                : "not implemented on this CPU, or not emulated by its hypervisor";
        return new Explained(Cause.REGISTER_FAULT,
                r.failed() + ": #GP (EIO from " + op.call() + " " + node + "): " + why, null);
    }

    // ---- helpers --------------------------------------------------------------------------------

    /** "crw------- root:root" for CPU {@code cpu}'s msr node, if the probe found it. */
    private static Optional<String> nodeOf(LinuxFacts f, int cpu) {
        return f.cpus().stream().filter(c -> c.cpu() == cpu).map(CpuDevices::msr)
                .filter(LinuxFacts.DeviceNode::present).map(LinuxFacts.DeviceNode::modeAndOwner).findFirst();
    }

    private static String who(LinuxFacts f) {
        return f.credentials().euid().optional().map(u -> "uid " + u).orElse("this user");
    }
}
