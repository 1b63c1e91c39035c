package dev.hwtool.cli;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

import java.util.OptionalLong;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

class CNumbersTest {

    @Test
    void strtoulAsGlibc() {
        assertEquals(new CNumbers.Parsed(0x1d9, 5), CNumbers.strtoul("0x1d9"));
        assertEquals(new CNumbers.Parsed(8, 3), CNumbers.strtoul("010"));
        assertEquals(new CNumbers.Parsed(-1L, 2), CNumbers.strtoul("-1"));
        assertEquals(new CNumbers.Parsed(12, 4), CNumbers.strtoul("  12x"));
        assertEquals(new CNumbers.Parsed(0, 1), CNumbers.strtoul("0x"), "0x without digits is 0, then 'x'");
        assertEquals(new CNumbers.Parsed(0, 0), CNumbers.strtoul("MSR_K8_TOP_MEM2"));
        assertEquals(new CNumbers.Parsed(-1L, 21), CNumbers.strtoul("999999999999999999999"), "overflow: ULONG_MAX");
    }

    @Test
    void msrToolsCpuNumbers() {
        assertEquals(3, CompatCommands.cpuNumber("3", 5119));
        assertEquals(3, CompatCommands.cpuNumber(" 3", 5119));
        assertEquals(0, CompatCommands.cpuNumber("", 5119), "strtoul leaves *end == 0: msr-tools reads CPU 0");
        assertEquals(5119, CompatCommands.cpuNumber("5119", 5119));
        assertNull(CompatCommands.cpuNumber("5120", 5119));
        assertNull(CompatCommands.cpuNumber("-1", 5119));
        assertNull(CompatCommands.cpuNumber("3x", 5119));
        assertNull(CompatCommands.cpuNumber(" ", 5119));
    }

    @Test
    void scanfBitfield() {
        assertArrayEquals(new int[]{3, 0}, CNumbers.scanBitfield("3:0"));
        assertArrayEquals(new int[]{3, 0}, CNumbers.scanBitfield("3:0junk"), "sscanf ignores what follows");
        assertArrayEquals(new int[]{63, 1}, CNumbers.scanBitfield(" +63: 1"));
        assertArrayEquals(new int[]{-1, 0}, CNumbers.scanBitfield("-1:0"), "unsigned: 4294967295, then h > 63 fails");
        assertNull(CNumbers.scanBitfield("3 :0"));
        assertNull(CNumbers.scanBitfield("3"));
        assertNull(CNumbers.scanBitfield("0x3:0"), "%u is decimal: '0' then 'x' is not ':'");
    }

    @Test
    void strictRejectsWhatCWouldSilentlyRead() {
        assertEquals(OptionalLong.of(0x1d9), CNumbers.strict("0x1d9", 32));
        assertEquals(OptionalLong.of(0x1d9), CNumbers.strict("0X1D9", 32));
        assertEquals(OptionalLong.of(8), CNumbers.strict("010", 32));
        assertEquals(OptionalLong.of(0), CNumbers.strict("0", 32));
        assertEquals(OptionalLong.of(-1L), CNumbers.strict("0xffffffffffffffff", 64));
        for (String bad : new String[]{"", "MSR_K8_TOP_MEM2", "0x", "1d9", "-1", "+1", " 1", "1 ", "09", "0x100000000",
                "0x10000000000000000", "18446744073709551616"}) {
            assertEquals(OptionalLong.empty(), CNumbers.strict(bad, bad.startsWith("0x1000000000") || bad.startsWith("1844") ? 64 : 32), bad);
        }
        assertEquals(OptionalLong.empty(), CNumbers.strict("0x100000000", 32));
    }

    @Property
    void strictReadsEveryValueInAllThreeSpellings(@ForAll long v) {
        assertEquals(OptionalLong.of(v), CNumbers.strict("0x" + Long.toHexString(v), 64));
        assertEquals(OptionalLong.of(v), CNumbers.strict("0" + Long.toOctalString(v), 64));
        assertEquals(OptionalLong.of(v), CNumbers.strict(Long.toUnsignedString(v), 64));
    }
}
