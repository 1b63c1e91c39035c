package dev.hwtool.linux.sys;

import dev.hwtool.caps.Fact;
import dev.hwtool.caps.LinuxFacts;
import dev.hwtool.caps.LinuxFacts.Container;
import dev.hwtool.caps.LinuxFacts.CpuDevices;
import dev.hwtool.caps.LinuxFacts.Credentials;
import dev.hwtool.caps.LinuxFacts.DeviceNode;
import dev.hwtool.caps.LinuxFacts.Driver;
import dev.hwtool.caps.LinuxFacts.DriverState;
import dev.hwtool.caps.LinuxFacts.KernelConfig;
import dev.hwtool.caps.LinuxFacts.Pmu;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.AccessDeniedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.zip.GZIPInputStream;

/**
 * Reads what the Linux kernel offers from /proc, /sys and /dev into {@link LinuxFacts}. Every
 * path is resolved against a root directory ("/" on a real system, a fixture tree in tests).
 * Never throws for a missing or unreadable file: it records {@link Fact.Absent} or
 * {@link Fact.Unreadable}. Parsing is left to {@link LinuxParsers}.
 */
public final class LinuxProbe {

    private static final int S_IFMT = 0170000;
    private static final int S_IFCHR = 0020000;
    private static final int S_IFBLK = 0060000;
    private static final int S_IFDIR = 0040000;
    private static final int S_IFLNK = 0120000;

    private final Path root;

    private LinuxProbe(Path root) {
        this.root = root;
    }

    /** The facts of the system this JVM runs on. */
    public static LinuxFacts probe() {
        return probe(Path.of("/"));
    }

    /** The facts of the tree under {@code root}, read as if it were "/". */
    public static LinuxFacts probe(Path root) {
        return new LinuxProbe(root).read();
    }

    private LinuxFacts read() {
        Fact<String> release = parsed("/proc/sys/kernel/osrelease", String::strip);
        Fact<String> machine = parsed("/proc/sys/kernel/arch", String::strip);
        Fact<List<Integer>> online = parsed("/sys/devices/system/cpu/online", LinuxParsers::cpuList);
        boolean devCpu = Files.isDirectory(at("/dev/cpu"));
        List<CpuDevices> cpus = cpus(online.orElse(List.of()), devCpu);
        KernelConfig config = kernelConfig(release);
        Driver msr = driver("msr", "CONFIG_X86_MSR", cpus.stream().anyMatch(c -> c.msr().present()),
                config, release);
        Driver cpuid = driver("cpuid", "CONFIG_X86_CPUID", cpus.stream().anyMatch(c -> c.cpuid().present()),
                config, release);
        return new LinuxFacts(release, machine, online, devCpu, cpus, msr, cpuid, credentials(),
                parsed("/sys/kernel/security/lockdown", LinuxParsers::lockdown),
                parsed("/sys/module/msr/parameters/allow_writes", LinuxParsers::allowWrites),
                parsed("/proc/sys/kernel/perf_event_paranoid", LinuxParsers::integer),
                parsed("/proc/sys/kernel/perf_event_mlock_kb", LinuxParsers::integer),
                pmus(), container(),
                parsed("/sys/devices/system/cpu/vulnerabilities/meltdown", String::strip),
                config);
    }

    // ---- devices -------------------------------------------------------------------------------

    private List<CpuDevices> cpus(List<Integer> online, boolean devCpu) {
        TreeSet<Integer> all = new TreeSet<>(online);
        if (devCpu) {
            for (String name : list("/dev/cpu")) {
                if (name.matches("\\d+")) {
                    all.add(Integer.parseInt(name));
                }
            }
        }
        List<CpuDevices> out = new ArrayList<>();
        for (int cpu : all) {
            String dir = "/dev/cpu/" + cpu;
            out.add(new CpuDevices(cpu, online.contains(cpu), Files.isDirectory(at(dir)),
                    node(dir + "/msr"), node(dir + "/cpuid")));
        }
        return out;
    }

    private DeviceNode node(String sysPath) {
        Path p = at(sysPath);
        if (!Files.exists(p)) {
            return DeviceNode.absent(sysPath);
        }
        try {
            PosixFileAttributes a = Files.readAttributes(p, PosixFileAttributes.class);
            int mode = -1;
            long rdev = -1;
            try {
                mode = (Integer) Files.getAttribute(p, "unix:mode");
                rdev = (Long) Files.getAttribute(p, "unix:rdev");
            } catch (UnsupportedOperationException | IllegalArgumentException e) {
                // the "unix" attribute view is JDK-specific; without it type and numbers stay unknown
            }
            boolean chr = mode >= 0 && (mode & S_IFMT) == S_IFCHR;
            int major = chr ? (int) (((rdev >>> 8) & 0xfff) | ((rdev >>> 32) & ~0xfffL)) : -1;
            int minor = chr ? (int) ((rdev & 0xff) | ((rdev >>> 12) & ~0xffL)) : -1;
            String modeText = typeChar(mode, a) + PosixFilePermissions.toString(a.permissions());
            return new DeviceNode(sysPath, true, chr, major, minor, modeText, a.owner().getName(),
                    a.group().getName(), Files.isReadable(p), Files.isWritable(p));
        } catch (IOException e) {
            return new DeviceNode(sysPath, true, false, -1, -1, "?", "?", "?", Files.isReadable(p),
                    Files.isWritable(p));
        }
    }

    private static char typeChar(int mode, PosixFileAttributes a) {
        if (mode >= 0) {
            return switch (mode & S_IFMT) {
                case S_IFCHR -> 'c';
                case S_IFBLK -> 'b';
                case S_IFDIR -> 'd';
                case S_IFLNK -> 'l';
                default -> a.isRegularFile() ? '-' : '?';
            };
        }
        return a.isRegularFile() ? '-' : a.isDirectory() ? 'd' : '?';
    }

    // ---- drivers -------------------------------------------------------------------------------

    private Driver driver(String name, String configSymbol, boolean nodesPresent, KernelConfig config,
                          Fact<String> release) {
        String moduleDir = "/sys/module/" + name;
        boolean builtinListed = false;
        boolean installed = false;
        Optional<String> rel = release.optional();
        if (rel.isPresent()) {
            String modules = "/lib/modules/" + rel.get();
            builtinListed = text(modules + "/modules.builtin").optional()
                    .map(t -> t.lines().anyMatch(l -> l.endsWith("/" + name + ".ko"))).orElse(false);
            installed = list(modules + "/kernel/arch/x86/kernel").stream()
                    .anyMatch(f -> f.startsWith(name + ".ko"));
        }
        return decideDriver(name, configSymbol, Files.isDirectory(at(moduleDir)),
                text(moduleDir + "/initstate").map(String::strip), nodesPresent, config, builtinListed, installed);
    }

    /**
     * Which state a driver is in, from the evidence in order of strength: a live module's
     * initstate (only loadable modules have it, kernel/module/sysfs.c), a /sys/module entry
     * without it (built in, with parameters), the kernel configuration, device nodes, the
     * installed module tree.
     */
    static Driver decideDriver(String name, String configSymbol, boolean sysModuleDir, Fact<String> initstate,
                               boolean nodesPresent, KernelConfig config, boolean builtinListed,
                               boolean moduleInstalled) {
        String moduleDir = "/sys/module/" + name;
        if (initstate.isKnown()) {
            return new Driver(name, DriverState.MODULE_LOADED, moduleDir + "/initstate: " + initstate.orElse(""));
        }
        if (sysModuleDir) {
            return new Driver(name, DriverState.BUILT_IN, moduleDir + " exists without initstate");
        }
        Optional<String> cfg = config.get(configSymbol);
        if (cfg.filter("y"::equals).isPresent()) {
            return new Driver(name, DriverState.BUILT_IN, configSymbol + "=y in " + config.source());
        }
        if (nodesPresent) {
            return new Driver(name, DriverState.BUILT_IN, "device nodes present without " + moduleDir);
        }
        if (cfg.filter("m"::equals).isPresent()) {
            return new Driver(name, DriverState.MODULE_NOT_LOADED, configSymbol + "=m in " + config.source()
                    + ", no " + moduleDir);
        }
        if (cfg.filter("n"::equals).isPresent()) {
            String modules = config.is("CONFIG_MODULES", "n") ? ", and CONFIG_MODULES is not set" : "";
            return new Driver(name, DriverState.NOT_BUILT, configSymbol + " is not set in " + config.source()
                    + modules);
        }
        if (builtinListed) {
            return new Driver(name, DriverState.BUILT_IN, name + ".ko listed in modules.builtin");
        }
        if (moduleInstalled) {
            return new Driver(name, DriverState.MODULE_NOT_LOADED, name + ".ko installed, no " + moduleDir);
        }
        return new Driver(name, DriverState.UNKNOWN, "no " + moduleDir + ", no device nodes, no kernel config");
    }

    private KernelConfig kernelConfig(Fact<String> release) {
        Path gz = at("/proc/config.gz");
        if (Files.isReadable(gz)) {
            try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(Files.readAllBytes(gz)))) {
                String text = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1);
                return new KernelConfig("/proc/config.gz", LinuxParsers.kernelConfig(text, KernelConfig.WANTED));
            } catch (IOException e) {
                // unreadable or not gzip: fall through to /boot
            }
        }
        if (release.isKnown()) {
            String boot = "/boot/config-" + release.orElse("");
            Optional<String> text = text(boot).optional();
            if (text.isPresent()) {
                return new KernelConfig(boot, LinuxParsers.kernelConfig(text.get(), KernelConfig.WANTED));
            }
        }
        return KernelConfig.NONE;
    }

    // ---- process ------------------------------------------------------------------------------

    private Credentials credentials() {
        String status = "/proc/self/status";
        return new Credentials(parsed(status, LinuxParsers::euid), parsed(status, LinuxParsers::capEff),
                parsed("/proc/self/uid_map", LinuxParsers::initialUserNamespace),
                parsed(status, LinuxParsers::seccomp), parsed(status, LinuxParsers::seccompFilters));
    }

    // ---- PMUs ---------------------------------------------------------------------------------

    private List<Pmu> pmus() {
        String base = "/sys/bus/event_source/devices/";
        List<Pmu> out = new ArrayList<>();
        for (String name : list(base)) {
            String dir = base + name;
            out.add(new Pmu(name, parsed(dir + "/type", LinuxParsers::integer),
                    parsed(dir + "/caps/branches", LinuxParsers::integer),
                    parsed(dir + "/caps/pmu_name", String::strip),
                    parsed(dir + "/caps/max_precise", LinuxParsers::integer),
                    parsed(dir + "/rdpmc", LinuxParsers::integer)));
        }
        return out;
    }

    // ---- container ----------------------------------------------------------------------------

    private Container container() {
        return decideContainer(Files.exists(at("/run/.containerenv")), Files.exists(at("/.dockerenv")),
                text("/run/systemd/container"), text("/proc/1/environ"), text("/proc/1/cgroup"),
                text("/proc/self/cgroup"), text("/proc/self/mountinfo"));
    }

    /**
     * Container markers, strongest first: podman's /run/.containerenv, docker's /.dockerenv,
     * /run/systemd/container (systemd-nspawn and others), container= in PID 1's environment,
     * and runtime names in cgroup paths. The kind is the first marker's.
     *
     * <p>/.dockerenv is a file in the image, so it survives wherever the image's root goes: a VM
     * or a chroot built from a container image has it too (the build machine, a Firecracker VM
     * whose root was a docker image, and the QEMU guest that chroots into it). It counts only when
     * something the runtime does at start corroborates it: docker's bind mounts of /etc/hostname,
     * /etc/hosts or /etc/resolv.conf from its containers/ID directory in /proc/self/mountinfo, or
     * any other marker. Alone, it is kept as evidence of a container that was not detected.
     */
    static Container decideContainer(boolean containerenv, boolean dockerenv, Fact<String> systemdContainer,
                                     Fact<String> pid1Environ, Fact<String> pid1Cgroup, Fact<String> selfCgroup,
                                     Fact<String> selfMountinfo) {
        List<String> evidence = new ArrayList<>();
        List<String> kinds = new ArrayList<>();
        systemdContainer.optional().map(String::strip).filter(s -> !s.isEmpty()).ifPresent(k -> {
            evidence.add("/run/systemd/container: " + k);
            kinds.add(k);
        });
        pid1Environ.optional().flatMap(e -> LinuxParsers.environVariable(e, "container")).ifPresent(k -> {
            evidence.add("container=" + k + " in /proc/1/environ");
            kinds.add(k);
        });
        pid1Cgroup.optional().flatMap(LinuxParsers::containerFromCgroup).ifPresent(k -> {
            evidence.add("/proc/1/cgroup names " + k);
            kinds.add(k);
        });
        selfCgroup.optional().flatMap(LinuxParsers::containerFromCgroup).ifPresent(k -> {
            evidence.add("/proc/self/cgroup names " + k);
            kinds.add(k);
        });
        if (dockerenv) {
            Optional<String> bind = selfMountinfo.optional().flatMap(LinuxParsers::dockerBindMount);
            if (bind.isPresent() || containerenv || !kinds.isEmpty()) {
                bind.ifPresent(b -> evidence.addFirst(b + " in /proc/self/mountinfo"));
                evidence.addFirst("/.dockerenv exists");
                kinds.addFirst("docker");
            } else {
                return new Container(false, "", List.of("/.dockerenv exists, but nothing a container runtime sets up"
                        + " at start corroborates it (no docker bind mount of /etc/hostname in /proc/self/mountinfo,"
                        + " no runtime in the cgroup paths): a root file system made from a container image"));
            }
        }
        if (containerenv) {
            evidence.addFirst("/run/.containerenv exists");
            kinds.addFirst("podman");
        }
        return kinds.isEmpty() ? Container.NONE : new Container(true, kinds.getFirst(), evidence);
    }

    // ---- file access --------------------------------------------------------------------------

    private Path at(String sysPath) {
        return root.resolve(sysPath.substring(1));
    }

    /** The text of a file, or why there is none. Latin-1 so that any byte survives (environ). */
    private Fact<String> text(String sysPath) {
        Path p = at(sysPath);
        try {
            return Fact.known(new String(Files.readAllBytes(p), StandardCharsets.ISO_8859_1));
        } catch (NoSuchFileException e) {
            return Fact.absent(sysPath);
        } catch (AccessDeniedException e) {
            return Fact.unreadable(sysPath, "permission denied");
        } catch (IOException e) {
            return Files.exists(p) ? Fact.unreadable(sysPath, String.valueOf(e.getMessage()))
                    : Fact.absent(sysPath);
        }
    }

    private <T> Fact<T> parsed(String sysPath, Function<String, T> parser) {
        return switch (text(sysPath)) {
            case Fact.Known<String> k -> {
                try {
                    yield Fact.known(parser.apply(k.value()));
                } catch (IllegalArgumentException e) {
                    yield Fact.malformed(sysPath, k.value().strip());
                }
            }
            case Fact.Absent<String> a -> Fact.absent(a.path());
            case Fact.Unreadable<String> u -> Fact.unreadable(u.path(), u.error());
            case Fact.Malformed<String> m -> Fact.malformed(m.path(), m.text());
        };
    }

    /** Names in a directory, sorted; empty when it is absent or unreadable. */
    private List<String> list(String sysDir) {
        Path dir = at(sysDir.endsWith("/") ? sysDir.substring(0, sysDir.length() - 1) : sysDir);
        if (!Files.isDirectory(dir)) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path p : ds) {
                names.add(p.getFileName().toString());
            }
        } catch (IOException e) {
            return List.of();
        }
        names.sort(null);
        return names;
    }
}
