package dev.hwtool.containers;

import dev.hwtool.cli.Require;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * JUnit 5 extension: one private {@link Dockerd} for the whole test run, started before the
 * first container test class and stopped when the run ends (the root store closes it).
 *
 * <p>Where it lives comes from the build: failsafe sets {@code hwtool.dockerd.dir} and points
 * Testcontainers at the same socket with DOCKER_HOST (hwtool-cli/pom.xml). A missing dockerd
 * or a non-root user skips locally and fails under HWTOOL_REQUIRE_ALL=1 (CI), so CI can never
 * pass without having run the containers.
 *
 * <p>Declare it before {@code @Testcontainers}: extensions run in declaration order, and the
 * Testcontainers extension starts the {@code @Container} fields in its own beforeAll.
 */
public final class DockerDaemon implements BeforeAllCallback {

    private static final ExtensionContext.Namespace NAMESPACE = ExtensionContext.Namespace.create(DockerDaemon.class);

    @Override
    public void beforeAll(ExtensionContext context) {
        Optional<Path> dockerd = Dockerd.executable();
        Require.that(dockerd.isPresent(), "dockerd is not installed (apt-get install docker.io)");
        Require.that(LocalImages.busyboxBinary().isPresent(), "busybox is not installed (apt-get install busybox-static)");
        Require.that(euid() == 0, "dockerd needs root; these tests start their own daemon");
        Path dir = configuredDir();
        context.getRoot().getStore(NAMESPACE).getOrComputeIfAbsent(Dockerd.class, k -> {
            try {
                Dockerd d = Dockerd.start(dockerd.get(), dir);
                System.err.printf("[containers] dockerd pid %d answered on %s in %d ms (log %s)%n",
                        d.pid(), Dockerd.socket(dir), d.startedIn().toMillis(), d.log());
                return d;
            } catch (IOException e) {
                throw new IllegalStateException("cannot start dockerd in " + dir + ": " + e.getMessage(), e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting dockerd", e);
            }
        }, Dockerd.class);
    }

    /** The daemon's directory, checked against the DOCKER_HOST that Testcontainers will use. */
    private static Path configuredDir() {
        String prop = System.getProperty("hwtool.dockerd.dir");
        if (prop == null) {
            throw new IllegalStateException("hwtool.dockerd.dir is not set: run the container tests through failsafe"
                    + " (mvn verify), which also sets DOCKER_HOST and the TESTCONTAINERS_* variables");
        }
        Path dir = Path.of(prop).toAbsolutePath().normalize();
        String expected = Dockerd.dockerHost(dir);
        String actual = System.getenv("DOCKER_HOST");
        if (!expected.equals(actual)) {
            throw new IllegalStateException("DOCKER_HOST is " + actual + " but the private daemon listens on "
                    + expected + ": Testcontainers would talk to another daemon");
        }
        return dir;
    }

    private static int euid() {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (IOException | UnsupportedOperationException e) {
            return -1;
        }
    }
}
