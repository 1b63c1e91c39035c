package dev.hwtool.sim.scenario;

import dev.hwtool.sim.script.Scenarios;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

import java.util.List;
import java.util.stream.Stream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every shipped scenario runs to its end with every expectation holding: the SDM rules they
 * state hold in the simulator. One dynamic test per scenario, named after its rule.
 */
class ShippedScenariosTest {

    @TestFactory
    Stream<DynamicTest> everyShippedScenarioHolds() {
        return Scenarios.list().stream().map(e -> DynamicTest.dynamicTest(e.name(), () -> {
            ScenarioResult r = ScenarioRunner.runShipped(e.name(), ScenarioRunner.DEFAULT_PROFILE);
            assertTrue(r.expectations() > 0, e.name() + " checks something");
            assertEquals(Scenarios.script(e.name()).commands().size(), r.steps().size());
        }));
    }

    @Test
    void everyScenarioDescribesItsRuleAndNamesItsSource() {
        List<Scenarios.Entry> all = Scenarios.list();
        assertTrue(all.size() >= 60, "one scenario per rule: " + all.size());
        for (Scenarios.Entry e : all) {
            assertFalse(e.description().isBlank(), e.name());
            assertTrue(e.description().matches(".*(SDM|seed|arch/x86/|docs/facts\\.md|Table 17-6|Retirement).*"),
                    e.name() + " names its source: " + e.description());
            assertTrue(Scenarios.text(e.name()).orElseThrow().startsWith("# "), e.name());
        }
        assertEquals(all.size(), all.stream().map(Scenarios.Entry::name).distinct().count(), "names are unique");
    }

    @Test
    void allNineRowsOfTable17_6HaveAScenario() {
        for (int row = 1; row <= 9; row++) {
            String prefix = "bts-table-17-6-row" + row + "-";
            assertTrue(Scenarios.list().stream().anyMatch(e -> e.name().startsWith(prefix)), prefix);
        }
    }

    @Test
    void runsAreDeterministic() {
        for (String name : List.of("pmi-after-branch-fully-recorded", "lbr-call-stack-mode", "bts-circular-wrap")) {
            ScenarioResult a = ScenarioRunner.runShipped(name, ScenarioRunner.DEFAULT_PROFILE);
            ScenarioResult b = ScenarioRunner.runShipped(name, ScenarioRunner.DEFAULT_PROFILE);
            assertEquals(a, b, name);
        }
    }
}
