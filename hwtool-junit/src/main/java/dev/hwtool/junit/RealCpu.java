package dev.hwtool.junit;

import dev.hwtool.api.Facility;
import org.junit.jupiter.api.extension.ExtendWith;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated test on this machine's hardware {@link dev.hwtool.api.Platform}, passed as
 * its parameter and closed after the test, when every facility in {@link #requires()} is usable
 * here; otherwise the test is skipped with each unusable facility's reason and fix, exactly as
 * {@code hwtool caps} gives them. Together with {@link SimulatedCpu} this runs one test body on
 * the simulator in CI and on real hardware where it exists.
 */
@Documented
@Inherited
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.METHOD})
@ExtendWith(HwtoolExtension.class)
public @interface RealCpu {

    /** The facilities the test needs (e.g. {@code MSR_READ}, {@code LBR_PERF}); none: any Linux x86-64 host. */
    Facility[] requires() default {};
}
