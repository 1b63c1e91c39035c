package dev.hwtool.containers;

import org.testcontainers.images.builder.ImageFromDockerfile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Images made on the spot: no registry is reachable. FROM scratch plus the host's busybox,
 * which keeps the container alive ({@code sleep}) so each hwtool run is an exec in it; the
 * JDK, glibc and the jar are bind-mounted read-only by {@link HwtoolContainer}.
 */
final class LocalImages {

    /** busybox-static installs /bin/busybox (/usr/bin on merged-/usr Debian); a dynamic one also works with the host glibc mounted. */
    private static final List<Path> BUSYBOX = List.of(Path.of("/bin/busybox"), Path.of("/usr/bin/busybox"));

    private LocalImages() {
    }

    /** The host's busybox; {@link DockerDaemon} skips or fails the run before an image needs a missing one. */
    static Optional<Path> busyboxBinary() {
        return BUSYBOX.stream().filter(Files::isExecutable).findFirst();
    }

    /**
     * The image, built by the daemon's classic builder; "scratch" is not pulled. The exec form
     * (more than one argument) matters: the shell form would need a /bin/sh (Dockerfile reference, ENTRYPOINT: "shell form" runs /bin/sh -c).
     * Kept after the run (deleteOnExit false): the daemon's build cache makes the next build instant.
     */
    static ImageFromDockerfile busybox() {
        return new ImageFromDockerfile("hwtool-it/busybox", false)
                .withFileFromPath("busybox", busyboxBinary().orElseThrow())
                .withDockerfileFromBuilder(b -> b.from("scratch")
                        .copy("busybox", "/bin/busybox")
                        .entryPoint("/bin/busybox", "sleep", "3600")
                        .build());
    }
}
