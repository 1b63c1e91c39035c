package dev.hwtool.containers;

import dev.hwtool.api.Cause;

import java.util.List;
import java.util.Locale;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Read access to {@code hwtool doctor --json} (README.md: describes, checks [name, status,
 * detail, fix, cause], verdicts, summary), checked on the way in against the rules doctor
 * promises: exit 0 when nothing fails, else the first failing check's cause code; nothing on
 * stderr; every check says what it found.
 */
record DoctorJsonView(Map<String, Object> root) {

    static DoctorJsonView of(ContainerRun run) {
        assertEquals("", run.err(), run::toString);
        DoctorJsonView d = new DoctorJsonView(run.json());
        Map<String, Object> summary = d.map("summary");
        assertEquals(run.exit(), ((Number) summary.get("exit_code")).intValue(), "summary.exit_code is the exit code");
        Object first = summary.get("first_failure");
        if (first == null) {
            assertEquals(0, run.exit(), run::toString);
        } else {
            Map<String, Object> failed = d.check((String) first);
            assertEquals("fail", failed.get("status"), failed::toString);
            Cause cause = Cause.valueOf(((String) failed.get("cause")).toUpperCase(Locale.ROOT));
            assertEquals(cause.exitCode(), run.exit(), () -> "exit code of the first failing check " + failed);
        }
        for (Map<String, Object> c : d.checks()) {
            assertFalse(((String) c.get("detail")).isBlank(), c::toString);
            assertTrue(List.of("ok", "warn", "fail").contains(c.get("status")), c::toString);
        }
        return d;
    }

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> checks() {
        return (List<Map<String, Object>>) root.get("checks");
    }

    Map<String, Object> check(String name) {
        return checks().stream().filter(c -> name.equals(c.get("name"))).findFirst()
                .orElseThrow(() -> new AssertionError("no doctor check " + name + " in " + root.get("checks")));
    }

    String status(String name) {
        return (String) check(name).get("status");
    }

    String detail(String name) {
        return (String) check(name).get("detail");
    }

    String fix(String name) {
        return (String) check(name).get("fix");
    }

    String cause(String name) {
        return (String) check(name).get("cause");
    }

    @SuppressWarnings("unchecked")
    private Map<String, Object> map(String key) {
        return (Map<String, Object>) root.get(key);
    }
}
