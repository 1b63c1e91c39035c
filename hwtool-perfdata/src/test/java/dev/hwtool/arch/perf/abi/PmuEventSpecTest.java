package dev.hwtool.arch.perf.abi;

import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class PmuEventSpecTest {

    @Test
    void termsGoWhereTheirFormatsSay() {
        Map<String, String> formats = Map.of("event", "config:0-7,32-35\n", "umask", "config:8-15\n",
                "edge", "config:18\n", "ldlat", "config1:0-15\n");
        PmuEventSpec s = PmuEventSpec.parse("cpu", "x", 4, "event=0x1c4,umask=0x01,edge,ldlat=3\n", formats);
        assertEquals(0x1L << 32 | 0xc4 | 0x01 << 8 | 1L << 18, s.config());
        assertEquals(3, s.config1());
        assertEquals(4, s.attr().build().type());
        assertThrows(IllegalArgumentException.class, () -> PmuEventSpec.parse("cpu", "x", 4, "event=0x1000", formats));
        assertThrows(IllegalArgumentException.class, () -> PmuEventSpec.parse("cpu", "x", 4, "cmask=1", formats));
        assertEquals(0x55, PmuEventSpec.parse("p", "y", 9, "config=0x55", Map.of()).config());
    }
}
