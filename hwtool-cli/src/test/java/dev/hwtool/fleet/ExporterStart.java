package dev.hwtool.fleet;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.fail;

/** Waits for a started exporter's "serving SCHEME://HOST:PORT/metrics" line on its stderr (SCHEME http or https, as asked). */
final class ExporterStart {
    private static final Duration WAIT = Duration.ofSeconds(90);

    private ExporterStart() {
    }

    /**
     * The HOST:PORT the exporter serves; lines before it (notes on events not counted here) are
     * skipped. stderr is drained afterwards so that the exporter never blocks on a full pipe.
     */
    static String address(Process p, String name, String scheme) throws Exception {
        Pattern serving = Pattern.compile("serving " + scheme + "://([^/]+)/metrics");
        BufferedReader err = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
        CompletableFuture<String> first = CompletableFuture.supplyAsync(() -> {
            StringBuilder seen = new StringBuilder();
            try {
                for (String l = err.readLine(); l != null; l = err.readLine()) {
                    if (serving.matcher(l).find()) {
                        return l;
                    }
                    seen.append(l).append('\n');
                }
            } catch (IOException e) {
                seen.append("read failed: ").append(e);
            }
            return seen.toString();
        });
        String line = first.get(WAIT.toSeconds(), TimeUnit.SECONDS);
        Matcher m = serving.matcher(line);
        if (!m.find()) {
            fail(name + " exporter did not start: " + line);
        }
        Thread.ofVirtual().start(() -> err.lines().forEach(l -> { }));
        return m.group(1);
    }
}
