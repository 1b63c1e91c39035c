package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.sim.SimDevCpu;
import dev.hwtool.sim.SimulatedPlatform;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code hwtool sim exec -- CMD [ARGS...]}: mounts the simulated /dev/cpu tree on a private
 * directory, runs CMD in a private mount namespace (unshare(1) --mount --propagation private)
 * where the tree is bind-mounted over /dev/cpu, unmounts, and exits with CMD's status. The
 * host's /dev/cpu is never touched: the bind mount exists only in CMD's namespace.
 */
@Command(name = "exec", sortOptions = false,
        description = {"Run CMD with the simulated CPUs as its /dev/cpu (a FUSE tree bind-mounted over /dev/cpu in a "
                + "private mount namespace; the host's /dev/cpu is untouched), then exit with CMD's status. "
                + "Everything CMD reads there is SIMULATED.",
                "Exit code: CMD's; 125 when the tree cannot be put over /dev/cpu, 127 when CMD is not found; "
                        + "6 without the right to create a mount namespace, and the codes of 'sim mount'."})
final class SimExecCommand implements Callable<Integer> {

    /** The status of sh(1) when the bind mount fails (as docker run and podman use 125 for their own failures). */
    static final int SETUP_FAILED = 125;

    @Mixin
    SimTreeOptions options;

    @Parameters(index = "0..*", arity = "1..*", paramLabel = "CMD", description = "The command and its arguments (after --).")
    List<String> command;

    @Override
    public Integer call() throws IOException, InterruptedException {
        requireNamespaces();
        if (!Files.isDirectory(Path.of("/dev/cpu"))) {
            throw new HwException(Cause.UNSUPPORTED, "there is no /dev/cpu directory to put the simulated tree over",
                    "create it once (mkdir /dev/cpu) or load the msr driver (modprobe msr)");
        }
        Path dir = Files.createTempDirectory("hwtool-devcpu");
        try (SimulatedPlatform platform = options.platform();
             SimTreeOptions.TraceFile trace = options.traceFile();
             SimDevCpu tree = SimDevCpu.mount(platform, dir, trace)) {
            List<String> argv = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "--",
                    "/bin/sh", "-c", "mount --bind \"$0\" /dev/cpu || { echo \"hwtool: sim exec: cannot bind $0 over /dev/cpu\" >&2; exit "
                            + SETUP_FAILED + "; }; exec \"$@\"", dir.toString()));
            argv.addAll(command);
            Process p = new ProcessBuilder(argv).inheritIO().start();
            try (StopSignals ignored = StopSignals.install(p::destroy)) {
                return p.waitFor();
            }
        } finally {
            Files.deleteIfExists(dir);
        }
    }

    /** Whether this process may create a mount namespace (root, or CAP_SYS_ADMIN); a one-line reason if not. */
    private static void requireNamespaces() throws InterruptedException {
        try {
            Process p = new ProcessBuilder("unshare", "--mount", "--propagation", "private", "true").redirectErrorStream(true).start();
            String msg = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            if (p.waitFor() != 0) {
                throw new HwException(Cause.PERMISSION_DENIED, "sim exec needs a private mount namespace and cannot create one ("
                        + (msg.isEmpty() ? "unshare failed" : msg.lines().findFirst().orElse(msg)) + ")",
                        "run as root, or where CAP_SYS_ADMIN and unshare(2) are allowed (not in an unprivileged container)");
            }
        } catch (IOException e) {
            throw new HwException(Cause.UNSUPPORTED, "sim exec needs unshare(1), which is not installed",
                    "install util-linux (apt-get install util-linux)");
        }
    }
}
