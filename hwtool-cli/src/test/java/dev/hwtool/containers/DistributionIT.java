package dev.hwtool.containers;

import dev.hwtool.cli.Require;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The self-contained distribution on a machine that has no JDK: a minimal Debian root
 * (debootstrap --variant=minbase, imported into the private dockerd, no registry) installs
 * the .deb this build made and runs it; and deploy/Dockerfile, built on that same base,
 * serves the exporter on the simulated backend.
 *
 * <p>The base is made once: debootstrap's root is kept as a tarball under the build directory
 * and the imported image stays in the private daemon's data-root, so later runs import nothing.
 */
@ExtendWith(DockerDaemon.class)
class DistributionIT {

    /** Debian's stable release at the time of writing; glibc 2.36. */
    private static final String SUITE = "bookworm";
    private static final String BASE_IMAGE = "hwtool-it/debian:" + SUITE + "-minbase";
    private static final String EXPORTER_IMAGE = "hwtool-it/exporter:dist";
    private static final Path BUILD = Path.of(System.getProperty("hwtool.build.dir", "target")).toAbsolutePath();
    private static final String VERSION = System.getProperty("hwtool.version", "");

    private static final List<String> containers = new ArrayList<>();

    @BeforeAll
    static void baseImage() throws IOException, InterruptedException {
        Require.that(Files.isExecutable(Path.of("/usr/sbin/debootstrap")), "debootstrap is not installed (apt-get install debootstrap)");
        Require.that(docker().isPresent(), "the docker client is not installed (apt-get install docker.io)");
        assertFalse(VERSION.isEmpty(), "hwtool.version is not set: run through failsafe (mvn verify)");
        assertTrue(Files.isRegularFile(deb()), deb() + " is missing: mvn package makes it (unless -Ddist.skip=true)");
        if (run("docker", "image", "inspect", BASE_IMAGE).exit() == 0) {
            return;
        }
        Path tarball = BUILD.resolve("debootstrap/" + SUITE + "-minbase.tar");
        if (!Files.isRegularFile(tarball)) {
            Path root = BUILD.resolve("debootstrap/root");
            run("rm", "-rf", root.toString()).assertOk();
            ContainerRun made = run("/usr/sbin/debootstrap", "--variant=minbase", SUITE, root.toString(), "http://deb.debian.org/debian");
            assertEquals(0, made.exit(), made::toString);
            Path part = Path.of(tarball + ".part");
            run("tar", "-C", root.toString(), "--numeric-owner", "-cf", part.toString(), ".").assertOk();
            Files.move(part, tarball);
            run("rm", "-rf", root.toString()).assertOk();
        }
        ContainerRun imported = run("docker", "import", tarball.toString(), BASE_IMAGE);
        assertEquals(0, imported.exit(), imported::toString);
    }

    @AfterAll
    static void removeContainers() throws IOException, InterruptedException {
        for (String id : containers) {
            run("docker", "rm", "-f", id);
        }
    }

    @Test
    void theDebInstallsAndRunsWithItsOwnRuntimeOnADebianWithNoJdk() throws IOException, InterruptedException {
        String id = start("run", "-d", BASE_IMAGE, "sleep", "600");
        run("docker", "cp", deb().toString(), id + ":/tmp/hwtool.deb").assertOk();

        ContainerRun noJdk = exec(id, "sh", "-c", "command -v java; ls -d /usr/lib/jvm; dpkg -l | grep -i jdk");
        assertEquals("", noJdk.out(), () -> "a clean base has no Java\n" + noJdk);

        ContainerRun install = exec(id, "dpkg", "-i", "/tmp/hwtool.deb");
        assertEquals(0, install.exit(), install::toString);
        assertEquals("/opt/hwtool/bin/hwtool\n", exec(id, "readlink", "/usr/bin/hwtool").assertOk().out());
        ContainerRun files = exec(id, "dpkg", "-L", "hwtool").assertOk();
        for (String name : List.of("rdmsr", "wrmsr", "cpuid")) {
            assertFalse(files.out().lines().anyMatch(l -> l.endsWith("/" + name)), () -> "the .deb takes no " + name + " name\n" + files);
        }
        assertTrue(files.out().lines().anyMatch(l -> l.equals("/opt/hwtool/runtime/bin/java")), files::toString);
        // a runtime, not a JDK: java.base's java and keytool, jdk.httpserver's jwebserver; no java on PATH
        ContainerRun runtimeBin = exec(id, "sh", "-c", "ls /opt/hwtool/runtime/bin; command -v java || true");
        assertEquals(List.of("java", "jwebserver", "keytool"), runtimeBin.assertOk().out().lines().toList(), runtimeBin::toString);

        ContainerRun version = exec(id, "hwtool", "--version").assertOk();
        assertEquals(NoDevCpuIT.inProcess("--version").out(), version.out(), "the .deb holds this build's jar");

        ContainerRun caps = exec(id, "hwtool", "caps").assertOk();
        assertTrue(caps.out().lines().anyMatch(l -> l.matches("\\s+container\\s+docker \\(/\\.dockerenv exists.*")), caps::toString);

        // IA32_DEBUGCTL (SDM Vol. 4, Table 2-2, 0x1D9) is 0 out of reset on the simulated Skylake
        assertSimulatedZero(exec(id, "hwtool", "rdmsr", "--backend", "sim", "--profile", "skylake", "0x1d9"));
        // a link named after a subcommand acts as it, as the README's compat line promises
        exec(id, "ln", "-s", "/opt/hwtool/bin/hwtool", "/usr/local/bin/rdmsr").assertOk();
        assertSimulatedZero(exec(id, "rdmsr", "--backend", "sim", "--profile", "skylake", "0x1d9"));
    }

    @Test
    void theImageRecipeServesTheExporterOnTheSimulatedBackend() throws IOException, InterruptedException {
        Path context = Files.createTempDirectory(BUILD, "image-context");
        try {
            Files.copy(tarball(), context.resolve(tarball().getFileName()));
            Files.copy(BUILD.resolve("../../deploy/Dockerfile").normalize(), context.resolve("Dockerfile"));
            ContainerRun built = run("docker", "build", "--pull=false", "-q", "--build-arg", "BASE=" + BASE_IMAGE,
                    "--build-arg", "VERSION=" + VERSION, "-t", EXPORTER_IMAGE, context.toString());
            assertEquals(0, built.exit(), built::toString);
        } finally {
            run("rm", "-rf", context.toString());
        }
        ContainerRun noJdk = run("docker", "run", "--rm", "--entrypoint", "sh", EXPORTER_IMAGE, "-c",
                "command -v java; command -v mvn; ls -d /usr/lib/jvm; dpkg -l | grep -i jdk");
        assertEquals("", noJdk.out(), () -> "no JDK and no Maven in the image\n" + noJdk);

        String id = start("run", "-d", EXPORTER_IMAGE, "exporter", "--listen", "0.0.0.0:9777",
                "--backend", "sim", "--profile", "skylake");
        // The daemon gives containers no network but their own loopback: scrape from inside,
        // with bash's /dev/tcp (the base has no curl), until the exporter answers.
        String scrape = "exec 3<>/dev/tcp/127.0.0.1/9777 && printf 'GET /metrics HTTP/1.1\\r\\nHost: localhost\\r\\n"
                + "Connection: close\\r\\n\\r\\n' >&3 && cat <&3";
        ContainerRun metrics = null;
        for (int i = 0; i < 120; i++) {
            metrics = exec(id, "bash", "-c", scrape);
            if (metrics.exit() == 0 && metrics.out().contains("hwtool_cpu_info")) {
                break;
            }
            ContainerRun state = run("docker", "inspect", "-f", "{{.State.Running}}", id);
            if (!state.out().strip().equals("true")) {
                break;
            }
            TimeUnit.MILLISECONDS.sleep(500);
        }
        ContainerRun last = metrics;
        ContainerRun logs = run("docker", "logs", id);
        assertTrue(last.out().startsWith("HTTP/1.1 200"), () -> last + "\n--- exporter log\n" + logs);
        assertTrue(last.out().lines().anyMatch(l -> l.startsWith("hwtool_cpu_info{") && l.endsWith("} 1")
                && l.contains("microarchitecture=\"Skylake\"") && l.contains("simulated=\"true\"")), last::toString);
    }

    /** The value 0, and on stderr only the simulator's one-line note. */
    private static void assertSimulatedZero(ContainerRun rdmsr) {
        assertEquals(0, rdmsr.exit(), rdmsr::toString);
        assertEquals("0\n", rdmsr.out(), rdmsr::toString);
        assertEquals(List.of("hwtool: note: SIMULATED CPU, simulator, profile skylake (Core i7-6700K); not this machine"),
                rdmsr.err().lines().toList(), rdmsr::toString);
    }

    private static Path deb() {
        return BUILD.resolve("hwtool_" + VERSION.replace('-', '~') + "_amd64.deb");
    }

    private static Path tarball() {
        return BUILD.resolve("hwtool-" + VERSION + "-linux-x86_64.tar.gz");
    }

    private static String start(String... args) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("docker"));
        cmd.addAll(List.of(args));
        ContainerRun started = run(cmd.toArray(String[]::new));
        assertEquals(0, started.exit(), started::toString);
        String id = started.out().strip();
        containers.add(id);
        return id;
    }

    private static ContainerRun exec(String id, String... command) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of("docker", "exec", id));
        cmd.addAll(List.of(command));
        return run(cmd.toArray(String[]::new));
    }

    private static java.util.Optional<Path> docker() {
        return java.util.stream.Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                .filter(d -> !d.isEmpty()).map(d -> Path.of(d, "docker")).filter(Files::isExecutable).findFirst();
    }

    /** Runs a command to completion (the private daemon's DOCKER_HOST is in the environment; failsafe sets it). */
    private static ContainerRun run(String... cmd) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().put("DOCKER_BUILDKIT", "0"); // the classic builder: BuildKit would want its frontend image
        Path out = Files.createTempFile("dist-it", ".out");
        Path err = Files.createTempFile("dist-it", ".err");
        try {
            Process p = pb.redirectOutput(out.toFile()).redirectError(err.toFile()).redirectInput(ProcessBuilder.Redirect.from(Path.of("/dev/null").toFile())).start();
            if (!p.waitFor(15, TimeUnit.MINUTES)) {
                p.destroyForcibly();
                throw new IllegalStateException("did not finish in 15 minutes: " + String.join(" ", cmd));
            }
            return new ContainerRun(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8), Files.readString(err, StandardCharsets.UTF_8));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
        }
    }
}
