package dev.hwtool.cli;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Preconditions of tests that need something from the machine. Locally a missing tool skips
 * the test with the reason; under HWTOOL_REQUIRE_ALL=1 (set by .ci/run) it fails, so CI can
 * never pass by skipping.
 */
public final class Require {
    private Require() {
    }

    public static void that(boolean condition, String reason) {
        if (condition) {
            return;
        }
        if (System.getenv("HWTOOL_REQUIRE_ALL") != null) {
            Assertions.fail("required by HWTOOL_REQUIRE_ALL but missing: " + reason);
        }
        Assumptions.abort(reason);
    }

    public static void tool(String path) {
        that(Files.isExecutable(Path.of(path)), path + " is not installed (apt-get install " + Path.of(path).getFileName() + ")");
    }
}
