package dev.hwtool.cli;

import dev.hwtool.testing.Preconditions;

/**
 * Preconditions of tests that need something from the machine. Locally a missing tool skips
 * the test with the reason; when HWTOOL_REQUIRE_ALL is set to a non-empty value other than
 * {@code 0} (.ci/run sets 1) it fails, so CI can never pass by skipping. Delegates to
 * {@link Preconditions}, which the other modules' tests use too; hardware a host lacks goes
 * through {@link Preconditions#hostHas}/{@link Preconditions#hostLacks}.
 */
public final class Require {
    private Require() {
    }

    public static void that(boolean condition, String reason) {
        Preconditions.that(condition, reason);
    }

    public static void tool(String path) {
        Preconditions.tool(path);
    }

    /** Whether HWTOOL_REQUIRE_ALL is in force (see {@link Preconditions#requireAll()}). */
    public static boolean all() {
        return Preconditions.requireAll();
    }
}
