package dev.hwtool.qemu;

import dev.hwtool.cli.Require;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What the real-kernel ITs share: the preconditions (qemu, a kernel, busybox-static, the built
 * jar — missing ones skip locally and fail under HWTOOL_REQUIRE_ALL=1), where guests keep their
 * files, and the guest's java command line.
 */
final class RealKernel {

    static final Path ROOT = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
    static final Path TARGET = ROOT.resolve("hwtool-cli/target");
    static final Path JAR = TARGET.resolve("hwtool.jar");
    static final Path TEST_CLASSES = TARGET.resolve("test-classes");
    static final Path MSR_TOOLS_RDMSR = Path.of("/usr/sbin/rdmsr");
    /** Per boot; a boot takes 10-40 s here, the limit only catches a hung guest. */
    static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("hwtool.qemu.timeout.seconds", 300));

    private RealKernel() {
    }

    /** The kernel to boot, after checking everything a boot needs. */
    static Kernel require() {
        String reason = QemuGuest.unavailableReason();
        Require.that(reason == null, reason);
        Require.that(Files.isRegularFile(JAR), JAR + " is missing: run the real-kernel ITs after 'package' (mvn verify)");
        return Kernel.newestInstalled().orElseThrow();
    }

    static QemuGuest.Builder guest(String name, Kernel kernel) {
        return QemuGuest.builder(name, kernel, TARGET.resolve("qemu")).cpus(2).memoryMb(1024).timeout(TIMEOUT);
    }

    /**
     * The guest's command for one {@link GuestChecks} batch: this JDK (the one running the
     * tests, which is on the shared root), C1 only and the serial collector because every
     * emulated instruction is expensive and the run is short. No AOT cache: measured in the
     * guest, it made no difference that showed above the noise (23 MB read over 9p).
     */
    static String checksCommand(String... args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-Xmx256m"));
        cmd.addAll(List.of("-cp", JAR + ":" + TEST_CLASSES, GuestChecks.class.getName()));
        cmd.addAll(List.of(args));
        return "exec " + Shell.join(cmd) + "\n";
    }

    static Observations boot(QemuGuest guest) throws Exception {
        GuestRun run = guest.boot().requireCompleted();
        System.out.println("[qemu] guest '" + run.name() + "' ran " + run.elapsed().toMillis() + " ms (guest exit "
                + run.guestExit().getAsInt() + ")");
        return new Observations(run);
    }
}
