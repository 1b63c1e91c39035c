package dev.hwtool.containers;

import com.github.dockerjava.api.model.AccessMode;
import com.github.dockerjava.api.model.Bind;
import com.github.dockerjava.api.model.Capability;
import com.github.dockerjava.api.model.Device;
import com.github.dockerjava.api.model.Volume;
import org.testcontainers.containers.Container.ExecResult;
import org.testcontainers.containers.GenericContainer;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A container in which the real hwtool jar runs, as {@code java -jar}, on the host's JDK: the
 * JDK, the host's glibc and the jar are bind-mounted read-only into a FROM-scratch busybox
 * image (docs/facts.md §3). No network. What the container lacks or has — /dev/cpu nodes,
 * capabilities — is the test's subject, set with {@link #withHostDevices} and
 * {@link #withCapabilities}.
 */
final class HwtoolContainer extends GenericContainer<HwtoolContainer> {

    static final String JDK = "/opt/jdk";
    static final String JAR = "/opt/hwtool/hwtool.jar";
    /**
     * glibc and the dynamic loader the JDK's launcher is linked against: the directory the dynamic
     * linker loads libc.so.6 from (ldconfig -p; /lib/x86_64-linux-gnu on Debian, /lib64 on
     * others), and /lib64, where the x86-64 psABI puts the loader (/lib64/ld-linux-x86-64.so.2).
     */
    private static final List<String> HOST_LIBS = java.util.stream.Stream.concat(
                    dev.hwtool.testing.Preconditions.findLibrary("libc.so.6").map(p -> p.getParent().toString()).stream(),
                    java.util.stream.Stream.of("/lib64"))
            .distinct().toList();

    /** The JVM options of the ./hwtool launcher (start-up tuned, docs/facts.md §2.2), minus the AOT cache. */
    private static final List<String> JAVA = List.of(JDK + "/bin/java", "--enable-native-access=ALL-UNNAMED",
            "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-jar", JAR);

    HwtoolContainer() {
        super(LocalImages.busybox());
        Path jdk = Path.of(System.getProperty("java.home"));
        Path jar = builtJar();
        withNetworkMode("none");
        // The JVM keeps hsperfdata in /tmp, and JNA unpacks its library there when $HOME is not
        // writable; the image has none. Docker mounts a --tmpfs noexec, as most runtimes do.
        withTmpFs(Map.of("/tmp", "rw,mode=1777"));
        withStartupTimeout(Duration.ofSeconds(60));
        withCreateContainerCmdModifier(cmd -> {
            List<Bind> binds = new ArrayList<>();
            binds.add(new Bind(jdk.toString(), new Volume(JDK), AccessMode.ro));
            binds.add(new Bind(jar.toString(), new Volume(JAR), AccessMode.ro));
            for (String lib : HOST_LIBS) {
                binds.add(new Bind(lib, new Volume(lib), AccessMode.ro));
            }
            cmd.getHostConfig().withBinds(binds);
        });
    }

    /** hwtool-cli/target/hwtool.jar, made by 'package' before failsafe runs the *IT classes. */
    static Path builtJar() {
        Path root = Path.of(System.getProperty("hwtool.root.dir", "..")).toAbsolutePath().normalize();
        Path jar = root.resolve("hwtool-cli/target/hwtool.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the container tests run the packaged jar (mvn verify)");
        }
        return jar;
    }

    /** Passes host device nodes in, as {@code docker run --device PATH} (same path, rwm). */
    HwtoolContainer withHostDevices(String... paths) {
        return withCreateContainerCmdModifier(cmd -> {
            List<Device> devices = new ArrayList<>();
            for (String p : paths) {
                devices.add(Device.parse(p));
            }
            cmd.getHostConfig().withDevices(devices);
        });
    }

    /** {@code docker run --read-only}: the image's file system cannot be written (only the /tmp tmpfs can). */
    HwtoolContainer withReadOnlyRoot() {
        return withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withReadonlyRootfs(true));
    }

    /** {@code docker run --security-opt OPT...}, e.g. {@code seccomp=unconfined}. */
    HwtoolContainer withSecurityOpts(String... opts) {
        return withCreateContainerCmdModifier(cmd -> cmd.getHostConfig().withSecurityOpts(List.of(opts)));
    }

    /** {@code docker run --cap-add ... --cap-drop ...}; docker applies the adds, then the drops. */
    HwtoolContainer withCapabilities(List<Capability> add, List<Capability> drop) {
        return withCreateContainerCmdModifier(cmd -> cmd.getHostConfig()
                .withCapAdd(add.toArray(Capability[]::new))
                .withCapDrop(drop.toArray(Capability[]::new)));
    }

    /** Runs {@code java -jar hwtool.jar ARGS} in the container. */
    ContainerRun hwtool(String... args) {
        List<String> cmd = new ArrayList<>(JAVA);
        cmd.addAll(List.of(args));
        return exec(cmd.toArray(String[]::new));
    }

    /** Runs any command in the container (busybox applets as /bin/busybox APPLET ...). */
    ContainerRun exec(String... cmd) {
        try {
            ExecResult r = execInContainer(cmd);
            return new ContainerRun(r.getExitCode(), r.getStdout(), r.getStderr());
        } catch (IOException e) {
            throw new IllegalStateException("exec " + String.join(" ", cmd) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted: exec " + String.join(" ", cmd), e);
        }
    }
}
