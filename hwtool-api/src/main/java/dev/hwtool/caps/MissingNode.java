package dev.hwtool.caps;

import dev.hwtool.api.Cause;
import dev.hwtool.caps.LinuxFacts.Driver;

import java.nio.file.Path;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;

/**
 * The one place that explains a missing {@code /dev/cpu/N/<driver>} node of an online CPU:
 * which {@link Cause}, why, and what to do, from the driver's state and whether this process runs
 * in a container. A pure function of {@link LinuxFacts}; the msr and cpuid errors, {@link Verdicts}
 * and {@code hwtool doctor} all ask it, so they never disagree.
 *
 * <p>msr.c and cpuid.c create a node for every online CPU when they load (msr_device_create,
 * cpuid_device_create on CPU hotplug), so a missing node of an online CPU means one of:
 * <ul>
 *   <li>the driver is not there — {@link Cause#DRIVER_NOT_LOADED}, the only case that cause is for;
 *   <li>the driver is there but its nodes are not in this /dev: a container started without
 *       {@code --device=/dev/cpu}, or a /dev that is not devtmpfs — {@link Cause#UNSUPPORTED}
 *       ("no such device here"): nothing inside this process's view can load or create them.
 * </ul>
 * A container shares the host's kernel, so the driver state read from /sys/module and the kernel
 * configuration is the host's, and every driver remedy is prefixed "on the host:".
 */
public final class MissingNode {

    private static final String START_CONTAINER = "start the container with ";

    /**
     * @param cause  the failure this absence causes
     * @param why    one clause, e.g. "the msr driver is not loaded (msr.ko installed, no /sys/module/msr)"
     * @param remedy what to do, never empty
     */
    public record Explanation(Cause cause, String why, String remedy) {
    }

    private MissingNode() {
    }

    /**
     * Why {@code driver}'s nodes are missing for online CPUs. When the container has no /dev/cpu
     * at all, {@code why} already says so (callers need not name the CPU directory).
     */
    public static Explanation explain(LinuxFacts facts, Driver driver) {
        LinuxFacts.Container c = facts.container();
        boolean container = c.detected();
        String noDevCpu = container && !facts.devCpuPresent()
                ? "there is no /dev/cpu in this " + c.kind() + " container: the host's CPU device nodes were not"
                  + " passed in"
                : "";
        String name = driver.name();
        return switch (driver.state()) {
            case MODULE_LOADED, BUILT_IN -> {
                String present = "the " + name + " driver is present (" + driver.evidence() + ")";
                if (container) {
                    yield new Explanation(Cause.UNSUPPORTED, noDevCpu.isEmpty()
                            ? "not passed into this " + c.kind() + " container; " + present
                            : noDevCpu + "; " + present, containerDevices(name));
                }
                yield new Explanation(Cause.UNSUPPORTED, present + " but its node is not in this /dev",
                        mountDevtmpfs(name));
            }
            case NOT_BUILT -> new Explanation(Cause.DRIVER_NOT_LOADED,
                    joined(noDevCpu, "the kernel has no " + name + " driver (" + driver.evidence() + ")"),
                    container ? onTheHost(rebuildWith(name), name) : rebuildWith(name));
            case MODULE_NOT_LOADED, UNKNOWN -> new Explanation(Cause.DRIVER_NOT_LOADED,
                    joined(noDevCpu, "the " + name + " driver is not loaded (" + driver.evidence() + ")"),
                    container ? onTheHost(modprobe(name), name) : modprobe(name));
        };
    }

    /**
     * The explanation for one online CPU whose node is missing, its reason leading with what was
     * seen: "CPU 1 is online but /dev/cpu/1 is missing: ..." or "/dev/cpu/0 exists but has no msr
     * node: ...".
     *
     * @param cpuDir        the CPU's directory, as the caller named it ({@code <dev>/cpu/N})
     * @param cpuDirPresent whether that directory exists
     */
    public static Explanation forCpu(LinuxFacts facts, Driver driver, int cpu, Path cpuDir, boolean cpuDirPresent) {
        Explanation x = explain(facts, driver);
        boolean noDevCpu = facts.container().detected() && !facts.devCpuPresent();
        String seen = cpuDirPresent ? cpuDir + " exists but has no " + driver.name() + " node: "
                : noDevCpu ? "CPU " + cpu + " is online but "
                : "CPU " + cpu + " is online but " + cpuDir + " is missing: ";
        return new Explanation(x.cause(), seen + x.why(), x.remedy());
    }

    // ---- remedies, by driver ("msr" or "cpuid") ----------------------------------------------------

    /** {@code sudo modprobe msr}. */
    public static String modprobe(String driver) {
        return "sudo modprobe " + driver;
    }

    /** The build option of the driver: arch/x86/Kconfig's X86_MSR and X86_CPUID. */
    public static String configSymbol(String driver) {
        return "CONFIG_X86_" + driver.toUpperCase(Locale.ROOT);
    }

    public static String rebuildWith(String driver) {
        return "boot a kernel built with " + configSymbol(driver) + "=y or =m, then " + modprobe(driver);
    }

    /**
     * The docker/podman flags that pass the nodes in: msr_open also checks CAP_SYS_RAWIO,
     * cpuid_open checks nothing (arch/x86/kernel/{msr,cpuid}.c).
     */
    public static String containerDevices(String driver) {
        return START_CONTAINER + "--device=/dev/cpu" + (driver.equals("msr") ? " --cap-add=SYS_RAWIO" : "");
    }

    /** A host step, then the container restarted with the nodes. */
    public static String onTheHost(String step, String driver) {
        return "on the host: " + step + "; then " + containerDevices(driver);
    }

    public static String mountDevtmpfs(String driver) {
        return "sudo mount -t devtmpfs devtmpfs /dev (creates /dev/cpu/N/" + driver + ")";
    }

    /** The container-start flag {@code flag} alone, e.g. {@code --cap-add=SYS_RAWIO}. */
    public static String containerFlag(String flag) {
        return START_CONTAINER + flag;
    }

    /**
     * Remedies with their "start the container with FLAGS" clauses merged: the first remedy that
     * has one gets every flag any of them asks for, in order, once; later clauses are dropped
     * (with the "; then" that led to them), and a remedy that was only such a clause disappears.
     * So "--device=/dev/cpu --cap-add=SYS_RAWIO" and "--cap-add=SYS_RAWIO" give one clause.
     */
    public static List<String> mergeContainerStarts(Collection<String> remedies) {
        LinkedHashSet<String> flags = new LinkedHashSet<>();
        for (String r : remedies) {
            int at = r.indexOf(START_CONTAINER);
            if (at >= 0) {
                flags.addAll(List.of(r.substring(at + START_CONTAINER.length()).strip().split("\\s+")));
            }
        }
        LinkedHashSet<String> out = new LinkedHashSet<>();
        boolean placed = false;
        for (String r : remedies) {
            int at = r.indexOf(START_CONTAINER);
            if (at < 0) {
                out.add(r);
            } else if (!placed) {
                out.add(r.substring(0, at) + START_CONTAINER + String.join(" ", flags));
                placed = true;
            } else {
                String head = r.substring(0, at).replaceFirst(";?\\s*(then\\s*)?$", "").strip();
                if (!head.isEmpty()) {
                    out.add(head);
                }
            }
        }
        return List.copyOf(out);
    }

    private static String joined(String first, String second) {
        return first.isEmpty() ? second : first + ", and " + second;
    }
}
