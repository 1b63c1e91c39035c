package dev.hwtool.containers;

import dev.hwtool.cli.Require;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * For classes whose container gets the host's {@link #CPU0} (--device): without the cpuid
 * driver on the host, docker could not create it. Skips locally, fails in CI (Require).
 * Declare it before {@code @Testcontainers}, which starts the containers.
 */
public final class HostCpuidNode implements BeforeAllCallback {

    static final String CPU0 = "/dev/cpu/0/cpuid";

    @Override
    public void beforeAll(ExtensionContext context) {
        Require.that(Files.exists(Path.of(CPU0)), CPU0 + " is missing on this host (sudo modprobe cpuid)");
    }
}
