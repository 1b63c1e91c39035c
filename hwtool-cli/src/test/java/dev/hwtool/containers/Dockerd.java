package dev.hwtool.containers;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A private Docker daemon for the container tests: its own socket, data-root, exec-root,
 * pidfile, daemon.json and log, all under one directory, so it never touches (or needs) a
 * system daemon. No bridge and no iptables: the containers run with no network, and the
 * machine's firewall is left alone. Stopped with SIGTERM, which stops its containers and the
 * containerd it started.
 */
final class Dockerd implements AutoCloseable {

    /** A fresh daemon answered its socket in about 2 s here (docs/facts.md §3.1); allow a slow CI machine. */
    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);
    /** dockerd gives running containers 15 s (--shutdown-timeout) before killing them. */
    private static final Duration STOP_TIMEOUT = Duration.ofSeconds(40);
    /** sun_path is 108 bytes; containerd's socket sits deeper, under exec-root. */
    private static final int MAX_SOCKET_PATH = 100;

    private final Process process;
    private final Path dir;
    private final Duration startedIn;
    private boolean closed;

    private Dockerd(Process process, Path dir, Duration startedIn) {
        this.process = process;
        this.dir = dir;
        this.startedIn = startedIn;
    }

    static Path socket(Path dir) {
        return dir.resolve("docker.sock");
    }

    /** The value of DOCKER_HOST that reaches the daemon started in {@code dir}. */
    static String dockerHost(Path dir) {
        return "unix://" + socket(dir);
    }

    /** The dockerd executable: on PATH, or in the sbin directories a non-root PATH lacks. */
    static Optional<Path> executable() {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        dirs.addAll(List.of("/usr/sbin", "/usr/local/sbin", "/sbin"));
        return dirs.stream().filter(d -> !d.isEmpty()).map(d -> Path.of(d, "dockerd")).filter(Files::isExecutable).findFirst();
    }

    /** Starts dockerd with everything under {@code dir} and waits until its socket answers /_ping. */
    static Dockerd start(Path dockerd, Path dir) throws IOException, InterruptedException {
        Path socket = socket(dir);
        if (socket.toString().length() > MAX_SOCKET_PATH) {
            throw new IllegalStateException("socket path " + socket + " is longer than " + MAX_SOCKET_PATH
                    + " characters (sun_path limit): build from a shorter directory");
        }
        Files.createDirectories(dir);
        stopLeftover(dir);
        // An empty daemon.json: settings in the system's /etc/docker/daemon.json (hosts, bridge,
        // data-root) would conflict with the flags below.
        Files.writeString(dir.resolve("daemon.json"), "{}\n");
        Path log = dir.resolve("dockerd.log");
        List<String> cmd = List.of(dockerd.toString(),
                "--host", dockerHost(dir),
                "--config-file", dir.resolve("daemon.json").toString(),
                "--pidfile", dir.resolve("dockerd.pid").toString(),
                "--data-root", dir.resolve("data").toString(),
                "--exec-root", dir.resolve("exec").toString(),
                "--bridge=none", "--iptables=false", "--ip6tables=false");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log.toFile());
        Map<String, String> env = pb.environment();
        // containerd, runc and docker-init are looked up on PATH; Debian puts some in sbin.
        env.put("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
        env.remove("DOCKER_HOST");
        long t0 = System.nanoTime();
        Process p = pb.start();
        p.getOutputStream().close();
        long deadline = t0 + START_TIMEOUT.toNanos();
        while (!ping(socket)) {
            if (!p.isAlive()) {
                throw new IllegalStateException("dockerd exited with " + p.exitValue() + " before its socket answered; "
                        + lastLines(log));
            }
            if (System.nanoTime() > deadline) {
                p.destroy();
                p.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
                throw new IllegalStateException("dockerd did not answer on " + socket + " within " + START_TIMEOUT
                        + "; " + lastLines(log));
            }
            Thread.sleep(50);
        }
        return new Dockerd(p, dir, Duration.ofNanos(System.nanoTime() - t0));
    }

    Duration startedIn() {
        return startedIn;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return dir.resolve("dockerd.log");
    }

    /**
     * A daemon left by a test run that was killed: it still holds the pidfile, and a second
     * dockerd refuses to start. Only a dockerd serving this directory's socket is stopped.
     */
    private static void stopLeftover(Path dir) throws IOException, InterruptedException {
        Path pidfile = dir.resolve("dockerd.pid");
        if (!Files.exists(pidfile)) {
            return;
        }
        String text = Files.readString(pidfile).strip();
        if (!text.matches("\\d+")) {
            Files.delete(pidfile);
            return;
        }
        long pid = Long.parseLong(text);
        Optional<ProcessHandle> handle = ProcessHandle.of(pid);
        Path cmdline = Path.of("/proc", text, "cmdline");
        boolean ours = handle.isPresent() && Files.exists(cmdline)
                && Files.readString(cmdline).replace('\0', ' ').contains(dockerHost(dir));
        if (ours) {
            ProcessHandle leftover = handle.get();
            leftover.destroy();
            long deadline = System.nanoTime() + STOP_TIMEOUT.toNanos();
            while (leftover.isAlive()) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("a dockerd left by an earlier run (pid " + pid + ", " + dir
                            + ") did not stop within " + STOP_TIMEOUT + " of SIGTERM");
                }
                Thread.sleep(100);
            }
        }
        Files.deleteIfExists(pidfile);
    }

    /** GET /_ping over the socket; true on "200 OK". Raw HTTP/1.0: no client library involved. */
    static boolean ping(Path socket) {
        if (!Files.exists(socket)) {
            return false;
        }
        try (SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            ch.write(ByteBuffer.wrap("GET /_ping HTTP/1.0\r\nHost: docker\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            ByteBuffer buf = ByteBuffer.allocate(512);
            while (ch.read(buf) >= 0 && buf.hasRemaining()) {
                // read to EOF (HTTP/1.0 closes) or until the buffer is full
            }
            String reply = new String(buf.array(), 0, buf.position(), StandardCharsets.US_ASCII);
            return reply.startsWith("HTTP/1.") && reply.contains(" 200 ");
        } catch (IOException e) {
            return false;
        }
    }

    private static String lastLines(Path log) {
        try (Stream<String> lines = Files.lines(log)) {
            List<String> all = lines.toList();
            return "last lines of " + log + ":\n" + String.join("\n", all.subList(Math.max(0, all.size() - 15), all.size()));
        } catch (IOException e) {
            return "no log (" + e.getMessage() + ")";
        }
    }

    /** SIGTERM, as an init system stops dockerd; SIGKILL only if it hangs. */
    @Override
    public synchronized void close() throws InterruptedException {
        if (closed) {
            return;
        }
        closed = true;
        process.destroy();
        if (!process.waitFor(STOP_TIMEOUT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
            throw new IllegalStateException("dockerd (pid " + process.pid() + ") did not stop within " + STOP_TIMEOUT
                    + " of SIGTERM and was killed; " + lastLines(log()));
        }
    }
}
