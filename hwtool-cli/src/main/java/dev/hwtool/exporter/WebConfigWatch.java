package dev.hwtool.exporter;

import dev.hwtool.exporter.TlsContexts.ServerTls;
import dev.hwtool.exporter.WebConfig.WebConfigException;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * The web configuration as the server uses it, read again when its file or a PEM file it names
 * changes: exporter-toolkit reads the file at every request "so the certificates are picked up
 * immediately" (docs/web-configuration.md), which is what a renewed key pair (cert-manager, a
 * Kubernetes Secret update) needs. Here the files' times and sizes are looked at, at most once a
 * second, when a connection is accepted or a request authenticated; the file is read only when
 * they differ. A changed file that cannot be used (or that would switch between HTTP and HTTPS,
 * which the listener cannot) is reported in one line and the previous configuration kept.
 */
public final class WebConfigWatch {

    /** What the server uses: TLS, users, extra headers. */
    public record Security(Optional<ServerTls> tls, Optional<BasicAuth> auth, Map<String, String> headers) {
        static Security of(WebConfig web) throws WebConfigException {
            return new Security(web.tls().isPresent() ? Optional.of(TlsContexts.server(web.tls().get())) : Optional.empty(),
                    web.users().isEmpty() ? Optional.empty() : Optional.of(new BasicAuth(web.users())), web.headers());
        }
    }

    private static final long CHECK_NANOS = Duration.ofSeconds(1).toNanos();

    /** The configuration in force, the files it came from, and their stamps when it was read. */
    private record Loaded(Security security, List<Path> files, List<String> stamps) {
    }

    private final Optional<Path> file;
    private final Consumer<String> log;
    private final AtomicLong nextCheck = new AtomicLong(System.nanoTime() + CHECK_NANOS);
    private volatile Loaded loaded;

    private WebConfigWatch(Optional<Path> file, Loaded first, Consumer<String> log) {
        this.file = file;
        this.log = log;
        this.loaded = first;
    }

    /** A configuration that never changes (no file, or one given as a value). */
    public static WebConfigWatch fixed(WebConfig web) throws WebConfigException {
        return new WebConfigWatch(Optional.empty(), new Loaded(Security.of(web), List.of(), List.of()), m -> { });
    }

    /** Reads the file now (a failure is the caller's: exit 3) and watches it; {@code log} gets one line per reload. */
    public static WebConfigWatch watching(Path file, Consumer<String> log) throws WebConfigException {
        return new WebConfigWatch(Optional.of(file), read(file), log);
    }

    /** Whether the configuration serves TLS (fixed for the listener's life). */
    public boolean tls() {
        return loaded.security().tls().isPresent();
    }

    /** The configuration in force, read again first if a second has passed and a file changed. */
    public Security current() {
        if (file.isPresent()) {
            long now = System.nanoTime();
            long next = nextCheck.get();
            if (now - next >= 0 && nextCheck.compareAndSet(next, now + CHECK_NANOS)) {
                check(file.get());
            }
        }
        return loaded.security();
    }

    private static Loaded read(Path f) throws WebConfigException {
        // a change between the read and the stamps is seen only at the file's next change: rare, and the
        // Kubernetes Secret update (one atomic swap of all files) cannot fall between them unseen twice
        WebConfig web = WebConfig.load(f);
        List<Path> files = files(f, web);
        List<String> stamps = files.stream().map(WebConfigWatch::stamp).toList();
        try {
            return new Loaded(Security.of(web), files, stamps);
        } catch (WebConfigException e) {
            throw new WebConfigException(f + ": " + e.getMessage()); // the key pair, CA or suites: named after the file
        }
    }

    private synchronized void check(Path f) {
        Loaded before = loaded;
        if (before.files().stream().map(WebConfigWatch::stamp).toList().equals(before.stamps())) {
            return;
        }
        try {
            Loaded next = read(f);
            if (next.security().tls().isPresent() != before.security().tls().isPresent()) {
                throw new WebConfigException(f + ": switching between HTTP and HTTPS needs a restart");
            }
            loaded = next;
            log.accept("hwtool exporter: " + f + " changed: read again");
        } catch (WebConfigException e) {
            // the broken state's stamps remembered: reported once, not at every check
            loaded = new Loaded(before.security(), before.files(), before.files().stream().map(WebConfigWatch::stamp).toList());
            log.accept("hwtool exporter: --web.config.file " + e.getMessage() + "; still serving the previous configuration");
        }
    }

    /** The config file, then each PEM file it names. */
    private static List<Path> files(Path file, WebConfig web) {
        List<Path> out = new ArrayList<>(List.of(file));
        web.tls().ifPresent(t -> {
            t.cert().file().ifPresent(out::add);
            t.key().file().ifPresent(out::add);
            t.clientCa().flatMap(WebConfig.Pem::file).ifPresent(out::add);
        });
        return List.copyOf(out);
    }

    private static String stamp(Path p) {
        try {
            // follows symbolic links: a Kubernetes Secret volume swaps its ..data link on update
            return p + "|" + Files.getLastModifiedTime(p).toMillis() + "|" + Files.size(p);
        } catch (IOException e) {
            return p + "|absent|";
        }
    }
}
