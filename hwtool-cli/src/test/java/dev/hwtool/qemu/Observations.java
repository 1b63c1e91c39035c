package dev.hwtool.qemu;

import java.util.LinkedHashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The observations of one boot, read on the host, with the assertions the ITs make on them. */
final class Observations {

    private final GuestRun run;
    private final Map<String, Observation> byCheck = new LinkedHashMap<>();

    Observations(GuestRun run) {
        this.run = run;
        run.outFile(GuestChecks.RESULTS).lines().filter(l -> !l.isBlank()).map(Observation::fromJson)
                .forEach(o -> byCheck.put(o.check(), o));
    }

    GuestRun run() {
        return run;
    }

    /** The observation of {@code check}; fails, with the console's tail, if the guest made none. */
    Observation get(String check) {
        Observation o = byCheck.get(check);
        assertNotNull(o, () -> "guest '" + run.name() + "' recorded no check '" + check + "' (recorded: " + byCheck.keySet()
                + ")\n--- last console lines\n" + run.consoleTail(30));
        return o;
    }

    /** Every observation whose check starts with {@code prefix}, by check, in the order recorded. */
    Map<String, Observation> startingWith(String prefix) {
        Map<String, Observation> m = new LinkedHashMap<>();
        byCheck.forEach((check, o) -> {
            if (check.startsWith(prefix)) {
                m.put(check, o);
            }
        });
        return m;
    }

    /** The values of a check that must have succeeded. */
    Map<String, String> values(String check) {
        Observation o = get(check);
        assertNull(o.cause(), () -> check + " should have succeeded in guest '" + run.name() + "' but failed: " + o);
        return o.values();
    }

    String value(String check) {
        return values(check).get("value");
    }

    long register(String check) {
        return Long.parseUnsignedLong(value(check).substring(2), 16);
    }

    /** Asserts that {@code check} failed with {@code cause}; returns its message. */
    String failure(String check, dev.hwtool.api.Cause cause) {
        Observation o = get(check);
        assertEquals(cause.name(), o.cause(), () -> check + " in guest '" + run.name() + "': expected " + cause
                + ", observed " + o);
        return o.message();
    }
}
