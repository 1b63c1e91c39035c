package dev.hwtool.linux;

import dev.hwtool.bind.NativeBinding;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class BindingsTest {

    @Test
    void opensEachBindingByName() {
        for (String name : Bindings.names()) {
            try (NativeBinding b = Bindings.open(name)) {
                assertEquals(name, b.name());
                assertEquals(ProcessHandle.current().pid(), b.syscall(39));
            }
        }
        try (NativeBinding b = Bindings.openDefault()) {
            assertEquals("ffm", b.name());
        }
        assertEquals(List.of("ffm", "jna"), Bindings.names());
    }

    @Test
    void anUnknownNameListsTheValidOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Bindings.open("jni"));
        assertEquals("unknown binding 'jni'; valid: ffm, jna", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> Bindings.open("FFM"));
        IllegalArgumentException n = assertThrows(IllegalArgumentException.class, () -> Bindings.open(null));
        assertTrue(n.getMessage().contains("valid: ffm, jna"));
    }

    /**
     * The FFM path must not load a single JNA class. Checked in a fresh JVM (this one has JNA
     * loaded by other tests) with -Xlog:class+load; the same probe with "jna" is the control that
     * shows the log would reveal JNA.
     */
    @Test
    void theFfmPathLoadsNoJnaClass() throws IOException, InterruptedException {
        List<String> ffm = loadedClasses("ffm");
        assertTrue(ffm.stream().anyMatch(c -> c.equals("dev.hwtool.ffm.FfmBinding")), "log shows the ffm binding");
        assertFalse(ffm.stream().anyMatch(c -> c.startsWith("com.sun.jna.") || c.startsWith("dev.hwtool.jna.")),
                () -> "JNA loaded on the ffm path: " + ffm.stream().filter(c -> c.contains("jna")).toList());

        List<String> jna = loadedClasses("jna");
        assertTrue(jna.contains("com.sun.jna.Native"), "control: the jna path loads JNA");
    }

    private static List<String> loadedClasses(String binding) throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xlog:class+load=info:stdout",
                "-cp", System.getProperty("java.class.path"), BindingProbe.class.getName(), binding)
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe timed out");
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("probe " + binding + " ok"), out);
        List<String> classes = new ArrayList<>();
        for (String line : out.split("\n")) {
            // "[0.012s][info][class,load] java.lang.Object source: shared objects file"
            int at = line.indexOf("[class,load] ");
            if (at >= 0) {
                String rest = line.substring(at + "[class,load] ".length());
                classes.add(rest.substring(0, rest.indexOf(' ')));
            }
        }
        return classes;
    }
}
