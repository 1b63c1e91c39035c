package dev.hwtool.cli;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import dev.hwtool.bind.ErrnoException;
import dev.hwtool.bind.NativeBinding;
import dev.hwtool.linux.sys.Bindings;
import dev.hwtool.linux.sys.ShutdownSignals;
import dev.hwtool.devcpu.DevCpuTree;
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
                "Exit code: CMD's; 128+N after signal N (Ctrl-C: 130; CMD gets the signal too); 125 when the tree cannot be put over /dev/cpu, 127 when CMD is not found; "
                        + "6 without the right to create a mount namespace, and the codes of 'sim mount'."})
final class SimExecCommand implements Callable<Integer> {

    /** The status of sh(1) when the bind mount fails (as docker run and podman use 125 for their own failures). */
    static final int SETUP_FAILED = 125;

    /**
     * Runs in CMD's private mount namespace: $0 the tree, $1 a scratch directory, then CMD. Where
     * the host has no /dev/cpu (no msr or cpuid driver loaded), the namespace gets a /dev of its
     * own: an overlay of the host's /dev (the same device nodes; its submounts such as /dev/pts
     * carried over) whose upper layer, a tmpfs, holds the new directory. Nothing of this is
     * visible outside the namespace.
     */
    static final String NAMESPACE_SCRIPT = """
            tree=$0 scratch=$1; shift
            fail() { echo "hwtool: sim exec: $*" >&2; exit %1$d; }
            if [ ! -d /dev/cpu ]; then
                mount -t tmpfs tmpfs "$scratch" || fail "cannot mount a tmpfs on $scratch"
                mkdir "$scratch/up" "$scratch/work" "$scratch/old"
                subs=$(awk '$5 ~ "^/dev/[^/]+$" { print $5 }' /proc/self/mountinfo)
                mount --rbind /dev "$scratch/old" || fail "cannot bind /dev to $scratch/old"
                mount -t overlay overlay -o "lowerdir=/dev,upperdir=$scratch/up,workdir=$scratch/work" /dev \
                    || fail "there is no /dev/cpu, and /dev cannot be overlaid to add one (mkdir /dev/cpu, or modprobe msr)"
                for m in $subs; do mount --rbind "$scratch/old${m#/dev}" "$m" || fail "cannot carry $m over"; done
                mkdir /dev/cpu || fail "cannot create /dev/cpu"
            fi
            mount --bind "$tree" /dev/cpu || fail "cannot bind $tree over /dev/cpu"
            exec "$@"
            """.formatted(SETUP_FAILED);

    @Mixin
    SimTreeOptions options;

    @Parameters(index = "0..*", arity = "1..*", paramLabel = "CMD", description = "The command and its arguments (after --).")
    List<String> command;

    /** CMD once started (under {@link #childLock}), for a signal to be passed on. */
    private Process child;
    private final Object childLock = new Object();

    /**
     * A signal at any moment, from the first line on, stops the command the same way: CMD (once
     * started) gets that signal, as a shell would pass it on; then CMD is waited for, the tree
     * unmounted, the two private directories removed, and the exit status is 128 + N (README,
     * "Exit codes"), whatever CMD's. Before this handler was in force (picocli's parsing) a signal
     * ends the process through its shutdown hooks, with the same status, before anything exists.
     */
    @Override
    public Integer call() throws IOException, InterruptedException {
        try (StopSignals stop = StopSignals.install(Thread.currentThread(), this::passOn)) {
            options.check();
            requireNamespaces();
            if (stop.requested()) {
                return stop.status(ExitCodes.OK);
            }
            Path dir = Files.createTempDirectory("hwtool-devcpu");
            Path scratch = null;
            try {
                scratch = Files.createTempDirectory("hwtool-devcpu-ns");
                return run(stop, dir, scratch);
            } finally {
                Files.deleteIfExists(dir);
                if (scratch != null) {
                    Files.deleteIfExists(scratch);
                }
            }
        }
    }

    private int run(StopSignals stop, Path dir, Path scratch) throws IOException, InterruptedException {
        if (stop.requested()) {
            return stop.status(ExitCodes.OK);
        }
        try (SimulatedPlatform platform = options.platform();
             SimTreeOptions.TraceFile trace = options.traceFile();
             DevCpuTree tree = DevCpuTree.mount(platform, dir, trace, true)) {
            List<String> argv = new ArrayList<>(List.of("unshare", "--mount", "--propagation", "private", "--",
                    "/bin/sh", "-c", NAMESPACE_SCRIPT, dir.toString(), scratch.toString()));
            argv.addAll(command);
            Process p;
            synchronized (childLock) {
                if (stop.requested()) {
                    return stop.status(ExitCodes.OK);
                }
                p = new ProcessBuilder(argv).inheritIO().start();
                child = p;
                trace.onFailure(p::destroy); // then the trace's failure is the exit: 13 and its reason
            }
            int status = p.waitFor();
            return stop.status(status);
        }
    }

    /** Passes signal {@code sig} on to CMD, if it has been started and still runs. */
    private void passOn(ShutdownSignals.Sig sig) {
        synchronized (childLock) {
            if (child != null && child.isAlive()) {
                try (NativeBinding b = Bindings.openDefault()) {
                    b.syscall(SYS_KILL, child.pid(), sig.number());
                } catch (ErrnoException e) {
                    // ESRCH: it ended meanwhile.
                }
            }
        }
    }

    /** x86-64 kill(2) (arch/x86/entry/syscalls/syscall_64.tbl). */
    private static final long SYS_KILL = 62;

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
