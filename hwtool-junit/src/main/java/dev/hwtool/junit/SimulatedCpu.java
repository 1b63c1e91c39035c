package dev.hwtool.junit;

import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated test (or every test of the annotated class) with a fresh simulated
 * {@link dev.hwtool.api.Platform} as its parameter, closed after the test; declare the parameter
 * as {@code Platform}, or as {@link dev.hwtool.sim.SimulatedPlatform} to drive workloads
 * ({@code run("loop iterations=1000")}) without a cast:
 *
 * <pre>{@code
 * @SimulatedCpu("skylake")
 * class MyDriverTest {
 *     @Test
 *     void setsLbr(Platform p) { ... }           // p.kind() == SIMULATED, booted from the profile's values
 *     @Test
 *     void counts(SimulatedPlatform p) { ... }  // the same platform, with run(...) and workload(...)
 * }
 * }</pre>
 *
 * A method's annotation wins over its class's. Each test's careful writes go to a journal of its
 * own platform, never to the user's ({@code ~/.local/state/hwtool}). The platform's results are labelled simulated
 * everywhere ({@code kind()}, {@code description()}, {@code Counts.simulated()}).
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(HwtoolExtension.class)
public @interface SimulatedCpu {

    /** A built-in profile name ({@code hwtool profiles}: skylake, alderlake, core2, ...), or a CPUID dump path. */
    String value();

    /** How many of the profile's CPUs to simulate; 0 (the default) for all of them. */
    int cpus() default 0;
}
