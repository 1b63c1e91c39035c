package dev.hwtool.qemu;

import dev.hwtool.api.MsrAccessContract;
import org.junit.jupiter.api.Test;
import org.junit.platform.commons.support.AnnotationSupport;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.EngineFilter;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;
import org.junit.platform.launcher.listeners.SummaryGeneratingListener;
import org.junit.platform.launcher.listeners.TestExecutionSummary;

import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * Runs {@link MsrAccessContract} on the real msr driver inside the guest JVM of
 * {@link GuestChecks}, through the JUnit Platform launcher: one {@link QemuMsrAccessContract}
 * subclass per binding, Jupiter only. Each test becomes one {@link Observation}
 * ({@code contract/<binding>/<method>}) whose values hold the JUnit status; a test that did not
 * pass carries the status as cause and its exception (class, message, the frame in our code)
 * as message. The host IT compares them with {@link #expectedChecks}.
 */
final class GuestContract {

    /** The prefix of every per-test observation. */
    static final String TEST_PREFIX = "contract/";
    /** A class-level failure (instantiation, lifecycle) that no test line would show. */
    static final String CONTAINER_PREFIX = "contract-container/";

    /** The contract subclass for each binding, in {@code Bindings.names()} order. */
    static final Map<String, Class<? extends QemuMsrAccessContract>> BY_BINDING = orderedMap();

    private GuestContract() {
    }

    private static Map<String, Class<? extends QemuMsrAccessContract>> orderedMap() {
        Map<String, Class<? extends QemuMsrAccessContract>> m = new LinkedHashMap<>();
        m.put("ffm", DeviceMsrAccessFfmContract.class);
        m.put("jna", DeviceMsrAccessJnaContract.class);
        return m;
    }

    /**
     * The @Test methods of the contract (its class and superclasses), found by reflection so
     * that the expected count follows the suite and cannot silently shrink.
     */
    static List<String> contractTestMethods() {
        TreeSet<String> names = new TreeSet<>();
        for (Class<?> c = MsrAccessContract.class; c != Object.class; c = c.getSuperclass()) {
            for (Method m : c.getDeclaredMethods()) {
                if (AnnotationSupport.isAnnotated(m, Test.class)) {
                    names.add(m.getName());
                }
            }
        }
        return List.copyOf(names);
    }

    /** Every check the guest must have recorded: each contract test on each binding. */
    static List<String> expectedChecks(List<String> bindings) {
        List<String> checks = new ArrayList<>();
        for (String b : bindings) {
            for (String method : contractTestMethods()) {
                checks.add(check(b, method));
            }
        }
        return checks;
    }

    static String check(String binding, String method) {
        return TEST_PREFIX + binding + "/" + method;
    }

    /**
     * Discovers and runs the contract subclasses, passing one observation per test (and per
     * failed container) to {@code sink} as each finishes; returns the launcher's summary counts.
     */
    static Map<String, String> run(Consumer<Observation> sink) {
        long start = System.nanoTime();
        LauncherDiscoveryRequest request = LauncherDiscoveryRequestBuilder.request()
                .selectors(BY_BINDING.values().stream().map(DiscoverySelectors::selectClass).toList())
                // Jupiter only, whatever else a class path may carry (jqwik is a test dependency too).
                .filters(EngineFilter.includeEngines("junit-jupiter"))
                .build();
        SummaryGeneratingListener summary = new SummaryGeneratingListener();
        Launcher launcher = LauncherFactory.create();
        launcher.execute(request, summary, new ResultLines(sink));
        TestExecutionSummary s = summary.getSummary();
        Map<String, String> counts = new LinkedHashMap<>();
        counts.put("tests_found", Long.toString(s.getTestsFoundCount()));
        counts.put("tests_succeeded", Long.toString(s.getTestsSucceededCount()));
        counts.put("tests_failed", Long.toString(s.getTestsFailedCount()));
        counts.put("tests_aborted", Long.toString(s.getTestsAbortedCount()));
        counts.put("tests_skipped", Long.toString(s.getTestsSkippedCount()));
        counts.put("containers_failed", Long.toString(s.getContainersFailedCount()));
        counts.put("ms", Long.toString((System.nanoTime() - start) / 1_000_000));
        return counts;
    }

    /** One observation per finished or skipped test, and per container that did not succeed. */
    private record ResultLines(Consumer<Observation> sink) implements TestExecutionListener {

        @Override
        public void executionSkipped(TestIdentifier id, String reason) {
            sink.accept(new Observation(name(id), Map.of("result", "SKIPPED"), "SKIPPED", reason));
        }

        @Override
        public void executionFinished(TestIdentifier id, TestExecutionResult result) {
            TestExecutionResult.Status status = result.getStatus();
            if (!id.isTest() && status == TestExecutionResult.Status.SUCCESSFUL) {
                return;
            }
            Map<String, String> values = Map.of("result", status.name());
            sink.accept(status == TestExecutionResult.Status.SUCCESSFUL
                    ? Observation.ok(name(id), values)
                    : new Observation(name(id), values, status.name(), result.getThrowable().map(ResultLines::describe)
                    .orElse("no exception")));
        }

        private static String name(TestIdentifier id) {
            if (id.isTest() && id.getSource().orElse(null) instanceof MethodSource m) {
                String binding = BY_BINDING.entrySet().stream().filter(e -> e.getValue().getName().equals(m.getClassName()))
                        .map(Map.Entry::getKey).findFirst().orElse(m.getClassName());
                return check(binding, m.getMethodName());
            }
            return CONTAINER_PREFIX + id.getUniqueId();
        }

        /** Class and message, and where in our code it was thrown: one line for the host's assertion output. */
        private static String describe(Throwable t) {
            String where = "";
            for (StackTraceElement e : t.getStackTrace()) {
                if (e.getClassName().startsWith("dev.hwtool.")) {
                    where = " at " + e.getFileName() + ":" + e.getLineNumber();
                    break;
                }
            }
            return t + where;
        }
    }
}
