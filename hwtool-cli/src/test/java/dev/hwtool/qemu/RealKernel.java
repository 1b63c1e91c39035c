package dev.hwtool.qemu;

import dev.hwtool.cli.Require;

import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashSet;
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
    /**
     * Per boot; the limit only catches a hung guest. A boot takes 10-40 s here, but a guest that
     * starts ten JVMs under TCG (UnprivilegedGuestIT) passed 300 s on this host at load 11 on 2 CPUs.
     */
    static final Duration TIMEOUT = Duration.ofSeconds(Long.getLong("hwtool.qemu.timeout.seconds", 900));

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
        return command(List.of(JAR.toString(), TEST_CLASSES.toString()), args);
    }

    /**
     * What the guest's JUnit run ({@link GuestContract}) needs beyond the jar and the test
     * classes, named by one class of each: hwtool-api's test jar with MsrAccessContract,
     * the launcher, the platform, Jupiter's API and engine (found by the launcher's
     * ServiceLoader), and their own dependencies. Only these: every jar on the class path is
     * opened over 9p under emulation when the launcher looks up its services, so the test class
     * path (jqwik, Testcontainers, docker-java...) would only cost boot time.
     */
    private static final List<String> JUNIT_RUN = List.of("dev.hwtool.api.MsrAccessContract",
            "org.junit.platform.launcher.Launcher", "org.junit.platform.engine.TestEngine",
            "org.junit.platform.commons.support.AnnotationSupport", "org.junit.jupiter.api.Test",
            "org.junit.jupiter.engine.JupiterTestEngine", "org.opentest4j.AssertionFailedError", "org.apiguardian.api.API");

    /**
     * {@link #checksCommand} with, after the jar and the test classes, the jars (or class
     * directories) from which this JVM loaded {@link #JUNIT_RUN}: the guest sees them at the
     * same paths through the shared root. The jar stays first, so the code under test is the
     * shaded artifact's.
     */
    static String checksCommandWithJUnit(String... args) {
        LinkedHashSet<String> cp = new LinkedHashSet<>(List.of(JAR.toString(), TEST_CLASSES.toString()));
        for (String name : JUNIT_RUN) {
            cp.add(whereLoaded(name).toString());
        }
        return command(List.copyOf(cp), args);
    }

    private static Path whereLoaded(String className) {
        try {
            Class<?> c = Class.forName(className, false, RealKernel.class.getClassLoader());
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI()).toAbsolutePath();
        } catch (ClassNotFoundException | URISyntaxException e) {
            throw new IllegalStateException(className + " is not on the test class path: the guest's JUnit run needs it", e);
        }
    }

    private static String command(List<String> classPath, String... args) {
        return "exec " + java(classPath, GuestChecks.class, List.of(args)) + "\n";
    }

    /**
     * The guest's java command line (one line, no exec) for another guest main class, on the jar
     * and the test classes, with the same JVM options as {@link #checksCommand}.
     */
    static String javaCommand(Class<?> main, List<String> args) {
        return java(List.of(JAR.toString(), TEST_CLASSES.toString()), main, args);
    }

    /** {@link #javaCommand(Class, List)} on another class path (e.g. copies a user without root can read). */
    static String javaCommand(List<String> classPath, Class<?> main, List<String> args) {
        return java(classPath, main, args);
    }

    private static String java(List<String> classPath, Class<?> main, List<String> args) {
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--enable-native-access=ALL-UNNAMED", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData",
                "-Xmx256m"));
        cmd.addAll(List.of("-cp", String.join(":", classPath), main.getName()));
        cmd.addAll(args);
        return Shell.join(cmd);
    }

    static Observations boot(QemuGuest guest) throws Exception {
        GuestRun run = guest.boot().requireCompleted();
        System.out.println("[qemu] guest '" + run.name() + "' ran " + run.elapsed().toMillis() + " ms (guest exit "
                + run.guestExit().getAsInt() + ")");
        return new Observations(run);
    }
}
