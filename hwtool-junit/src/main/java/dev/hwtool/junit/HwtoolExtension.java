package dev.hwtool.junit;

import dev.hwtool.api.HwException;
import dev.hwtool.api.Platform;
import dev.hwtool.api.Facility;
import dev.hwtool.api.Verdict;
import dev.hwtool.sim.Profiles;
import dev.hwtool.sim.SimulatedPlatform;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionConfigurationException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.junit.platform.commons.support.AnnotationSupport;

import java.lang.reflect.AnnotatedElement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * The extension behind {@link SimulatedCpu} and {@link RealCpu}: decides whether a test runs
 * (a {@code @RealCpu} test whose facilities are not usable here is skipped with the reasons) and
 * gives each test a new {@link Platform}, closed when the test ends. A simulated platform keeps
 * its careful writes in a journal of its own, deleted when it closes: each test has its own,
 * and none writes the journal of the real registers.
 */
public final class HwtoolExtension implements ParameterResolver, ExecutionCondition {

    private static final ExtensionContext.Namespace NS = ExtensionContext.Namespace.create(HwtoolExtension.class);

    /** The nearest annotation: the method's, else the class's (or an enclosing class's). */
    private record Choice(Optional<SimulatedCpu> simulated, Optional<RealCpu> real) {
        boolean any() {
            return simulated.isPresent() || real.isPresent();
        }
    }

    private static Choice choice(ExtensionContext context) {
        Optional<AnnotatedElement> method = context.getTestMethod().map(m -> m);
        for (AnnotatedElement e : elements(context)) {
            Optional<SimulatedCpu> s = AnnotationSupport.findAnnotation(e, SimulatedCpu.class);
            Optional<RealCpu> r = AnnotationSupport.findAnnotation(e, RealCpu.class);
            if (s.isPresent() && r.isPresent()) {
                throw new ExtensionConfigurationException(e + " has both @SimulatedCpu and @RealCpu: choose one");
            }
            if (s.isPresent() || r.isPresent()) {
                return new Choice(s, r);
            }
        }
        return new Choice(Optional.empty(), Optional.empty());
    }

    private static List<AnnotatedElement> elements(ExtensionContext context) {
        List<AnnotatedElement> out = new ArrayList<>();
        context.getTestMethod().ifPresent(out::add);
        Optional<Class<?>> c = context.getTestClass();
        while (c.isPresent()) {
            out.add(c.get());
            c = Optional.ofNullable(c.get().getEnclosingClass());
        }
        return out;
    }

    @Override
    public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
        Choice c = choice(context);
        if (c.real().isEmpty() || c.real().get().requires().length == 0 || context.getTestMethod().isEmpty()) {
            return ConditionEvaluationResult.enabled("no hardware facility required");
        }
        List<String> missing = new ArrayList<>();
        try (Platform p = Platform.open()) {
            List<Verdict> verdicts = p.capabilities().verdicts();
            for (Facility f : c.real().get().requires()) {
                Verdict v = verdicts.stream().filter(x -> x.facility() == f).findFirst().orElseThrow();
                if (!v.usable()) {
                    missing.add(f.label() + ": " + v.message() + v.remedy().map(r -> "; fix: " + r).orElse(""));
                }
            }
        } catch (HwException e) {
            return ConditionEvaluationResult.disabled("no hardware platform here: " + e.getMessage());
        }
        return missing.isEmpty() ? ConditionEvaluationResult.enabled("usable here: "
                + Arrays.toString(c.real().get().requires()))
                : ConditionEvaluationResult.disabled(String.join(" | ", missing));
    }

    /**
     * A {@link Platform} parameter (or a supertype), and a {@link SimulatedPlatform} one, whose
     * workloads, machine and journal a test of simulated hardware may want without a cast.
     */
    @Override
    public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
        Class<?> type = parameter.getParameter().getType();
        return (type.isAssignableFrom(Platform.class) || type == SimulatedPlatform.class) && choice(context).any();
    }

    @Override
    public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
        Choice c = choice(context);
        if (parameter.getParameter().getType() == SimulatedPlatform.class && c.simulated().isEmpty()) {
            throw new ParameterResolutionException(context.getDisplayName() + " runs on this machine (@RealCpu): its"
                    + " parameter is a Platform, not a SimulatedPlatform");
        }
        Platform p;
        try {
            if (c.simulated().isPresent()) {
                SimulatedCpu s = c.simulated().get();
                p = s.cpus() == 0 ? SimulatedPlatform.of(s.value())
                        : new SimulatedPlatform(Profiles.resolve(s.value()), s.cpus());
            } else {
                p = Platform.open();
            }
        } catch (HwException e) {
            throw new ParameterResolutionException("cannot open the platform for " + context.getDisplayName() + ": "
                    + e.getMessage() + e.remedy().map(r -> "; fix: " + r).orElse(""), e);
        }
        // closed when the test's context ends, whatever the outcome
        context.getStore(NS).put(new Object(), new Closing(p));
        return p;
    }

    /**
     * A platform closed with its test's store: JUnit 5.13 and later close a stored AutoCloseable
     * (and warn on stderr about a CloseableResource that is not one), earlier releases close a
     * CloseableResource; being both, it is closed once on either.
     */
    @SuppressWarnings("deprecation")
    private record Closing(Platform platform) implements ExtensionContext.Store.CloseableResource, AutoCloseable {
        @Override
        public void close() {
            platform.close();
        }
    }
}
