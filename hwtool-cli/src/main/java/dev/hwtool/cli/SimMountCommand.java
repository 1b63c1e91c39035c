package dev.hwtool.cli;

import dev.hwtool.devcpu.DevCpuTree;
import dev.hwtool.sim.SimulatedPlatform;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

/**
 * {@code hwtool sim mount DIR}: the simulated CPUs as a /dev/cpu tree (DIR/N/msr, DIR/N/cpuid)
 * through FUSE ({@link DevCpuTree}), in the foreground until SIGINT, SIGTERM, SIGHUP or an outside
 * {@code fusermount3 -u DIR}; then unmounted, exit 0 (unmounted from outside) or 128 + N (signal N),
 * the README's rule for every signal.
 */
@Command(name = "mount", sortOptions = false,
        description = {"Serve the simulated CPUs as a /dev/cpu tree at DIR (DIR/N/msr, DIR/N/cpuid, the kernel drivers' "
                + "semantics) through FUSE, until Ctrl-C, SIGTERM or 'fusermount3 -u DIR'. Everything it serves is SIMULATED.",
                "Exit code 0 once unmounted from outside, 130/143/129 once unmounted after SIGINT/SIGTERM/SIGHUP; "
                        + "5 without /dev/fuse, 11 without libfuse3, 3 when DIR is missing or already a mount point, "
                        + "6 when the mount is not permitted."})
final class SimMountCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    SimTreeOptions options;

    @Parameters(index = "0", paramLabel = "DIR", description = "An existing empty directory.")
    Path dir;

    /** The tree once mounted (under {@link #lock}), for a signal's handler to unmount. */
    private DevCpuTree mounted;
    private final Object lock = new Object();
    /** Counted down once the tree is unmounted, from outside or by {@link #unmount()}. */
    private final CountDownLatch done = new CountDownLatch(1);

    /**
     * The signal handler goes in first, so that a signal while the tree is being mounted (the
     * moment a caller that waits for DIR/0/msr may send it) still unmounts it before the exit,
     * rather than leaving the unmount to libfuse's auto_unmount helper after the process died.
     */
    @Override
    public Integer call() throws InterruptedException {
        try (StopSignals stop = StopSignals.install(Thread.currentThread(), s -> unmount())) {
            try (SimulatedPlatform platform = options.platform();
                 SimTreeOptions.TraceFile trace = options.traceFile();
                 DevCpuTree tree = DevCpuTree.mount(platform, dir, trace, true)) {
                // Done when the tree is unmounted from outside (fusermount3 -u, or -uz once the last
                // open node is closed), or when a signal or a failed trace stopped it: a node held open
                // keeps the FUSE loop waiting for that holder's next request, which need never come,
                // so the command does not wait for the loop; exiting closes /dev/fuse, which aborts the
                // connection (fs/fuse/dev.c, fuse_dev_release): the holder gets ENOTCONN at once.
                synchronized (lock) {
                    mounted = tree;
                }
                if (stop.requested()) {
                    return stop.status(ExitCodes.OK);
                }
                trace.onFailure(this::unmount); // then the trace's failure is the exit: 13 and its reason
                PrintWriter out = spec.commandLine().getOut();
                out.println("SIMULATED /dev/cpu tree at " + tree.directory() + ": profile " + platform.profile().name()
                        + ", CPUs " + platform.cpuid().cpus().stream().map(String::valueOf).collect(Collectors.joining(","))
                        + " (stop: Ctrl-C, SIGTERM or fusermount3 -u " + tree.directory() + ")");
                out.flush();
                Thread.ofPlatform().daemon().name("sim mount: unmounted").start(() -> {
                    try {
                        tree.awaitUnmounted();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    done.countDown();
                });
                done.await();
                return stop.status(ExitCodes.OK);
            } finally {
                synchronized (lock) {
                    mounted = null;
                }
            }
        }
    }

    private void unmount() {
        synchronized (lock) {
            if (mounted != null) {
                mounted.close();
            }
            done.countDown();
        }
    }
}
