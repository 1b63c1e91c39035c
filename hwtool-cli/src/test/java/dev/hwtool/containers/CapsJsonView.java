package dev.hwtool.containers;

import dev.hwtool.caps.Capability;

import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Read access to the documented JSON of {@code hwtool caps --json} (README.md, "JSON fields"),
 * so the tests read like the facts they check.
 */
record CapsJsonView(Map<String, Object> root) {

    Map<String, Object> linux() {
        return map(root, "linux");
    }

    Map<String, Object> container() {
        return map(linux(), "container");
    }

    boolean devCpuPresent() {
        return (Boolean) linux().get("dev_cpu_present");
    }

    List<Map<String, Object>> cpus() {
        return list(linux(), "cpus");
    }

    List<Integer> onlineCpus() {
        return ((List<?>) linux().get("online_cpus")).stream().map(o -> ((Number) o).intValue()).toList();
    }

    /** The cpuid device node of one CPU: linux.cpus[cpu == n].cpuid. */
    Map<String, Object> cpuidNode(int cpu) {
        return cpus().stream().filter(c -> ((Number) c.get("cpu")).intValue() == cpu).findFirst()
                .map(c -> map(c, "cpuid")).orElseThrow(() -> new AssertionError("no linux.cpus entry for CPU " + cpu + " in " + root));
    }

    long capEff() {
        Object v = map(linux(), "credentials").get("cap_eff");
        assertNotNull(v, "linux.credentials.cap_eff");
        return ((Number) v).longValue();
    }

    boolean has(Capability c) {
        return c.in(capEff());
    }

    Map<String, Object> verdict(String facility) {
        return list(root, "verdicts").stream().filter(v -> facility.equals(v.get("facility"))).findFirst()
                .orElseThrow(() -> new AssertionError("no verdict for " + facility + " in " + root.get("verdicts")));
    }

    boolean usable(String facility) {
        return (Boolean) verdict(facility).get("usable");
    }

    String reason(String facility) {
        return (String) verdict(facility).get("reason");
    }

    /** The verdict's remedies, joined with "; " in the order of its blockers ("" when none). */
    String remedy(String facility) {
        return (String) verdict(facility).get("remedy");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof Map<?, ?>)) {
            fail("'" + key + "' is not an object: " + v);
        }
        return (Map<String, Object>) v;
    }

    @SuppressWarnings("unchecked")
    private static List<Map<String, Object>> list(Map<String, Object> m, String key) {
        Object v = m.get(key);
        if (!(v instanceof List<?>)) {
            fail("'" + key + "' is not an array: " + v);
        }
        return (List<Map<String, Object>>) v;
    }
}
