package dev.hwtool.qemu;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;

/**
 * A throw-away Linux guest under QEMU's software emulation (TCG; KVM hangs on this machine and
 * is never used). The host's root file system is shared read-only over 9p and the guest command
 * runs chrooted into it, so it sees the host's JDK, jars and tools at their usual paths, with
 * the guest's own /proc, /sys, /dev and a tmpfs /tmp (into which the host's /tmp directories the
 * command needs, such as a checkout under /tmp, are bound back at their own paths). A second, writable 9p export of a host
 * directory appears as {@link #GUEST_OUT} for results. The initramfs is busybox plus the
 * kernel modules that are not built in (virtio-pci, 9p, and any asked for), loaded in
 * modules.dep order; the guest powers off when the command ends.
 */
final class QemuGuest {

    static final Path QEMU = Path.of("/usr/bin/qemu-system-x86_64");

    /** Where the writable results directory is mounted, as seen by the guest command. */
    static final String GUEST_OUT = "/tmp/hwtool-out";

    /** Modules every guest needs to mount the host root: virtio PCI transport and 9p over it. */
    static final List<String> BASE_MODULES = List.of("virtio_pci", "9pnet_virtio", "9p");

    private static final String EXIT_FILE = "guest-exit";

    private final Builder b;

    private QemuGuest(Builder b) {
        this.b = b;
    }

    static Builder builder(String name, Kernel kernel, Path workDir) {
        return new Builder(name, kernel, workDir);
    }

    /** Why a guest cannot be booted on this machine, or null if it can. */
    static String unavailableReason() {
        if (!Files.isExecutable(QEMU)) {
            return QEMU + " is not installed (apt-get install qemu-system-x86)";
        }
        String busybox = Busybox.unusableReason(Busybox.PATH);
        if (busybox != null) {
            return busybox;
        }
        if (Kernel.newestInstalled().isEmpty()) {
            return Kernel.absenceReason(Kernel.BOOT, Kernel.MODULES);
        }
        return null;
    }

    static final class Builder {
        private final String name;
        private final Kernel kernel;
        private final Path workDir;
        private final List<String> cmdline = new ArrayList<>();
        private final LinkedHashSet<String> modules = new LinkedHashSet<>(BASE_MODULES);
        private int cpus = 1;
        private String cpuModel = "max";
        private int memoryMb = 1024;
        private String command = "true";
        private Duration timeout = Duration.ofMinutes(3);

        private Builder(String name, Kernel kernel, Path workDir) {
            this.name = Objects.requireNonNull(name);
            this.kernel = Objects.requireNonNull(kernel);
            this.workDir = Objects.requireNonNull(workDir);
        }

        /** Extra kernel command-line parameters, e.g. {@code msr.allow_writes=off}. */
        Builder kernelArgs(String... args) {
            cmdline.addAll(List.of(args));
            return this;
        }

        /** Modules insmod'ed at boot, after the base set (dependencies are added). */
        Builder modules(String... names) {
            modules.addAll(List.of(names));
            return this;
        }

        Builder cpus(int n) {
            this.cpus = n;
            return this;
        }

        /**
         * The {@code -cpu} model QEMU presents (default {@code max}: every feature TCG emulates),
         * e.g. {@code Skylake-Server} or {@code EPYC-Rome} ({@code qemu-system-x86_64 -cpu help}).
         * Under TCG a named model keeps its vendor, family, model and stepping; the features TCG
         * cannot emulate are dropped with a warning on qemu's output.
         */
        Builder cpuModel(String model) {
            if (!model.matches("[A-Za-z0-9_.+-]+")) {
                throw new IllegalArgumentException("not a QEMU CPU model name: " + model);
            }
            this.cpuModel = model;
            return this;
        }

        Builder memoryMb(int mb) {
            this.memoryMb = mb;
            return this;
        }

        /** A /bin/sh command line run as root, chrooted into the host root, with $HWTOOL_OUT set. */
        Builder command(String shellCommand) {
            this.command = Objects.requireNonNull(shellCommand);
            return this;
        }

        /** After this long qemu is killed and the run counts as timed out. */
        Builder timeout(Duration limit) {
            this.timeout = limit;
            return this;
        }

        QemuGuest build() {
            return new QemuGuest(this);
        }
    }

    /** Boots the guest, waits for it to power off (or the time limit) and returns what it left. */
    GuestRun boot() throws IOException, InterruptedException {
        Path dir = Files.createDirectories(b.workDir.resolve(b.name));
        Path out = dir.resolve("out");
        deleteTree(out);
        Files.createDirectories(out);
        Path initramfs = dir.resolve("initramfs.cpio.gz");
        Files.write(initramfs, initramfs());
        Path console = dir.resolve("console.log");
        Files.deleteIfExists(console);
        Path qemuLog = dir.resolve("qemu.log");

        List<String> cmd = qemuCommand(initramfs, console, out);
        Files.writeString(dir.resolve("qemu-command.txt"), String.join(" ", cmd) + "\n");
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile()))
                .redirectErrorStream(true).redirectOutput(qemuLog.toFile()).start();
        boolean finished = p.waitFor(b.timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        String consoleText = Files.exists(console) ? Files.readString(console, StandardCharsets.ISO_8859_1) : "";
        String exitText = Files.exists(out.resolve(EXIT_FILE)) ? Files.readString(out.resolve(EXIT_FILE)).strip() : "";
        OptionalInt guestExit = exitText.matches("\\d+") ? OptionalInt.of(Integer.parseInt(exitText)) : OptionalInt.empty();
        return new GuestRun(b.name, consoleText, Files.readString(qemuLog, StandardCharsets.ISO_8859_1), guestExit,
                finished ? p.exitValue() : -1, !finished, elapsed, out);
    }

    List<String> qemuCommand(Path initramfs, Path console, Path out) {
        List<String> kernelArgs = new ArrayList<>(List.of("console=ttyS0", "quiet", "panic=-1"));
        kernelArgs.addAll(b.cmdline);
        return List.of(QEMU.toString(),
                "-accel", "tcg", "-cpu", b.cpuModel, "-smp", Integer.toString(b.cpus), "-m", Integer.toString(b.memoryMb),
                "-nodefaults", "-no-user-config", "-display", "none", "-monitor", "none",
                "-serial", "file:" + console, "-no-reboot",
                "-kernel", b.kernel.image().toString(), "-initrd", initramfs.toString(),
                "-append", String.join(" ", kernelArgs),
                "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
                "-virtfs", "local,path=" + out + ",mount_tag=out,security_model=none,multidevs=remap");
    }

    /** busybox as /init's interpreter, the modules, /dev/console, and the init script, gzipped newc. */
    byte[] initramfs() throws IOException {
        List<Path> mods = ModuleDeps.of(b.kernel).loadOrder(b.modules);
        Cpio cpio = new Cpio();
        for (String d : List.of("bin", "dev", "proc", "sys", "host", "hosttmp", "modules")) {
            cpio.directory(d);
        }
        // The kernel opens /dev/console for init's stdio before init can mount devtmpfs.
        cpio.charDevice("dev/console", 0600, 5, 1);
        cpio.file("bin/busybox", 0755, Files.readAllBytes(Busybox.PATH));
        List<String> insmods = new ArrayList<>();
        for (Path ko : mods) {
            String file = ko.getFileName().toString();
            cpio.file("modules/" + file, 0644, Files.readAllBytes(ko));
            insmods.add(file);
        }
        cpio.file("command.sh", 0644, b.command.getBytes(StandardCharsets.UTF_8));
        cpio.file("init", 0755, initScript(insmods).getBytes(StandardCharsets.UTF_8));
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream z = new GZIPOutputStream(gz)) {
            z.write(cpio.finish());
        }
        return gz.toByteArray();
    }

    private String initScript(List<String> insmods) {
        StringBuilder s = new StringBuilder();
        s.append("#!/bin/busybox sh\n");
        s.append("bb=/bin/busybox\n");
        s.append("fail() { echo \"" + GuestRun.INIT_MARK + " failed: $*\"; $bb poweroff -f; }\n");
        s.append("$bb mount -t proc proc /proc && $bb mount -t sysfs sysfs /sys && $bb mount -t devtmpfs devtmpfs /dev"
                + " || fail 'mount proc, sys, dev'\n");
        // The kernel applies "module.param=value" from its command line only to built-in code; for a
        // loadable module modprobe passes them (kmod's kcmdline handling). busybox insmod does not,
        // so do what modprobe would.
        s.append("params() { for w in $($bb cat /proc/cmdline); do case \"$w\" in \"$1\".*) echo \"${w#\"$1\".}\";; esac; done; }\n");
        for (String ko : insmods) {
            String module = ModuleDeps.name(ko);
            s.append("$bb insmod /modules/").append(ko).append(" $(params ").append(module).append(") || fail 'insmod ")
                    .append(ko).append("'\n");
        }
        String r = "/host";
        s.append("$bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144,ro host " + r + " || fail 'mount the host root over 9p'\n");
        // The guest's own tmpfs /tmp hides the host's /tmp, so whatever the guest needs from there
        // (a checkout, a JDK or a Maven repository under /tmp) is bound back at its own path.
        s.append("$bb mount -o bind " + r + "/tmp /hosttmp || fail 'keep the host /tmp'\n");
        s.append("$bb mount -t proc proc " + r + "/proc && $bb mount -t sysfs sysfs " + r + "/sys"
                + " && $bb mount -t devtmpfs devtmpfs " + r + "/dev && $bb mount -t tmpfs tmpfs " + r + "/tmp"
                + " || fail 'mount proc, sys, dev, tmp in the host root'\n");
        for (String top : hostTmpDirsNeeded()) {
            s.append("$bb mkdir -p " + r + "/tmp/" + top + " && $bb mount -o bind /hosttmp/" + top + " " + r + "/tmp/" + top
                    + " || fail 'bind the host /tmp/" + top + "'\n");
        }
        // lockdown and the LSMs report through securityfs, which nothing else mounts here.
        s.append("$bb mount -t securityfs securityfs " + r + "/sys/kernel/security || fail 'mount securityfs'\n");
        s.append("$bb mkdir -p " + r + GUEST_OUT + " && $bb mount -t 9p -o trans=virtio,version=9p2000.L,msize=262144 out "
                + r + GUEST_OUT + " || fail 'mount the results directory over 9p'\n");
        s.append("$bb cp /command.sh " + r + "/tmp/hwtool-command.sh || fail 'copy the command'\n");
        s.append("echo \"" + GuestRun.INIT_MARK + " running the command after $($bb cut -d' ' -f1 /proc/uptime) s\"\n");
        s.append("$bb env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/tmp LANG=C.UTF-8"
                + " HWTOOL_OUT=" + GUEST_OUT + " $bb chroot " + r + " /bin/sh /tmp/hwtool-command.sh\n");
        s.append("rc=$?\n");
        s.append("echo \"" + GuestRun.INIT_MARK + " command exited $rc after $($bb cut -d' ' -f1 /proc/uptime) s\"\n");
        s.append("echo $rc > " + r + GUEST_OUT + "/" + EXIT_FILE + "\n");
        s.append("$bb sync\n");
        s.append("$bb poweroff -f\n");
        return s.toString();
    }

    /**
     * The directories right below the host's /tmp that hold something the guest command uses:
     * the checkout (the working directory and {@code hwtool.root.dir}), the JDK, the class path
     * and the Maven repository. Empty when none is under /tmp, the usual case.
     */
    static List<String> hostTmpDirsNeeded() {
        List<String> paths = new ArrayList<>(List.of(System.getProperty("user.dir"), System.getProperty("java.home"),
                RealKernel.ROOT.toString(), Path.of(System.getProperty("user.home"), ".m2").toString()));
        paths.addAll(List.of(System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)));
        LinkedHashSet<String> tops = new LinkedHashSet<>();
        for (String p : paths) {
            if (p.isEmpty()) {
                continue;
            }
            Path abs = Path.of(p).toAbsolutePath().normalize();
            if (abs.getNameCount() >= 2 && abs.getName(0).toString().equals("tmp")) {
                String top = abs.getName(1).toString();
                if (!GUEST_OUT.equals("/tmp/" + top) && top.matches("[A-Za-z0-9._+-]+")) {
                    tops.add(top);
                }
            }
        }
        return List.copyOf(tops);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        } catch (UncheckedIOException e) {
            throw e.getCause();
        }
    }
}
