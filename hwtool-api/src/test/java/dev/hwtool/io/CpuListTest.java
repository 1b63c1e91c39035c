package dev.hwtool.io;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CpuListTest {

    @Test
    void parsesRangesAndSingles() {
        assertEquals(List.of(0, 1, 2, 3, 5, 7, 8), CpuList.parse("0-3,5,7-8"));
        assertEquals(List.of(0), CpuList.parse("0\n"));
        assertEquals(List.of(4, 5), CpuList.parse("4-5"));
        assertEquals(List.of(), CpuList.parse("\n"), "sysfs 'offline' is an empty line when none are offline");
        assertEquals(List.of(1, 2, 3), CpuList.parse("3,1-2,2"), "sorted, without duplicates");
    }

    @ParameterizedTest
    @ValueSource(strings = {"0-", "-3", "a", "1,,2", "3-1", "0 - 3", "1;2", "0x1", "70000", "1-2-3", ","})
    void rejectsBadTextNamingIt(String text) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CpuList.parse(text));
        assertTrue(e.getMessage().contains("\"" + text.strip() + "\""), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), "one line");
    }

    @Test
    void formatsAsTheKernelDoes() {
        assertEquals("0-3,5,7-8", CpuList.format(List.of(8, 7, 5, 3, 2, 1, 0)));
        assertEquals("0", CpuList.format(List.of(0)));
        assertEquals("", CpuList.format(List.of()));
        assertEquals("1,3", CpuList.format(List.of(1, 3)));
    }

    @Property
    void formatThenParseIsTheSortedSet(@ForAll @Size(max = 40) Set<@IntRange(min = 0, max = 300) Integer> cpus) {
        assertEquals(List.copyOf(new TreeSet<>(cpus)), CpuList.parse(CpuList.format(cpus)));
    }

    @Test
    void readsOnlineFromASysfsRoot(@TempDir Path sys) throws IOException {
        Path online = CpuList.onlineFile(sys);
        Files.createDirectories(online.getParent());
        Files.writeString(online, "0-2,4\n");
        assertEquals(List.of(0, 1, 2, 4), CpuList.online(sys));
    }

    @Test
    void aMissingOnlineFileIsAnOsError(@TempDir Path sys) {
        HwException e = assertThrows(HwException.class, () -> CpuList.online(sys));
        assertEquals(Cause.OS_ERROR, e.cause());
        assertEquals("cannot read " + CpuList.onlineFile(sys) + ": no such file or directory", e.getMessage());
    }

    @Test
    void anOnlineListLongerThanOneReadIsReadWhole(@TempDir Path sys) throws IOException {
        // A sparse cpulist can be long: every other CPU from 0 to 8190 is about 19 KB, several reads.
        StringBuilder text = new StringBuilder();
        List<Integer> cpus = new java.util.ArrayList<>();
        for (int c = 0; c <= 8190; c += 2) {
            text.append(c == 0 ? "" : ",").append(c);
            cpus.add(c);
        }
        Path online = CpuList.onlineFile(sys);
        Files.createDirectories(online.getParent());
        Files.writeString(online, text + "\n");
        assertTrue(text.length() > 16_384, "length " + text.length());
        assertEquals(cpus, CpuList.online(sys));
    }

    @Test
    void thisMachinesOnlineListMatchesTheJvmsProcessorCount() {
        // Runtime.availableProcessors() counts the affinity mask (sched_getaffinity), or fewer
        // under a container's CPU quota; the mask is a subset of the online CPUs, or all of them.
        List<Integer> online = CpuList.online();
        assertTrue(online.contains(0), "CPU 0 is online (x86 boots on it; arch/x86/kernel/topology.c keeps it)");
        List<Integer> mask = dev.hwtool.testing.Preconditions.cpusInMask();
        assertTrue(online.containsAll(mask));
        assertTrue(mask.size() >= Runtime.getRuntime().availableProcessors(), mask + " vs " + Runtime.getRuntime().availableProcessors());
    }
}
