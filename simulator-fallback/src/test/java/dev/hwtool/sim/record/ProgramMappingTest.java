package dev.hwtool.sim.record;

import org.junit.jupiter.api.Test;

import java.util.Optional;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class ProgramMappingTest {

    @Test
    void anonymousMappingsAreNamedInBracketsAsPerfsOwn() {
        ProgramMapping m = ProgramMapping.anonymous(0x401000, 0x2000, "hwsim-calltree");
        assertEquals("[hwsim-calltree]", m.filename());
        assertEquals(0, m.pgoff());
    }

    @Test
    void badMappingsAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> ProgramMapping.anonymous(0x401000, 0, "x"));
        assertThrows(IllegalArgumentException.class, () -> ProgramMapping.anonymous(-4096, 8192, "x"));
        assertThrows(IllegalArgumentException.class, () -> new ProgramMapping(0, 1, 0, "", Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> new ProgramMapping(0, 1, 0, "a", Optional.of("xyz")));
    }
}
