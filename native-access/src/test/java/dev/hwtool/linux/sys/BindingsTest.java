package dev.hwtool.linux.sys;

import dev.hwtool.api.Cause;
import dev.hwtool.api.HwException;
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
import static org.junit.jupiter.api.Assertions.assertSame;
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

    // ---- a JNA that cannot load ------------------------------------------------------------------

    private static final String NOEXEC = "/tmp/jna-1/jna42.tmp: /tmp/jna-1/jna42.tmp: failed to map segment from shared object";

    @Test
    void aNoexecTemporaryDirectoryIsUnsupportedWithTheRemedy() {
        UnsatisfiedLinkError first = new UnsatisfiedLinkError(NOEXEC);
        HwException e = Bindings.jnaUnavailable(first);
        assertEquals(Cause.UNSUPPORTED, e.cause());
        assertEquals("the jna binding cannot run here: JNA cannot map libjnidispatch.so from its temporary directory,"
                + " which is mounted noexec (" + NOEXEC + ")", e.getMessage());
        assertTrue(e.remedy().orElseThrow().contains("--binding ffm"), e.remedy()::toString);
        assertTrue(e.remedy().orElseThrow().contains("-Djna.tmpdir=DIR"), e.remedy()::toString);
        assertSame(first, e.getCause(), "the original error stays attached for HWTOOL_DEBUG");

        // the next use of JNA: NoClassDefFoundError, the first message kept in its cause (JDK 17+)
        NoClassDefFoundError later = new NoClassDefFoundError("Could not initialize class com.sun.jna.Native");
        later.initCause(new ExceptionInInitializerError("Exception java.lang.UnsatisfiedLinkError: " + NOEXEC
                + " [in thread \"main\"]"));
        assertEquals(e.getMessage(), Bindings.jnaUnavailable(later).getMessage());
    }

    @Test
    void otherLinkageErrorsAreNamedInOneLine() {
        HwException noJar = Bindings.jnaUnavailable(new NoClassDefFoundError("com/sun/jna/Native"));
        assertEquals(Cause.UNSUPPORTED, noJar.cause());
        assertEquals("the jna binding cannot run here: JNA is not on the class path (com/sun/jna/Native not found)",
                noJar.getMessage());
        HwException other = Bindings.jnaUnavailable(new UnsatisfiedLinkError("no jnidispatch in\njava.library.path"));
        assertEquals("the jna binding cannot run here: JNA cannot load its native library (UnsatisfiedLinkError:"
                + " no jnidispatch in)", other.getMessage());
        HwException lost = Bindings.jnaUnavailable(new NoClassDefFoundError("Could not initialize class com.sun.jna.Native"));
        assertFalse(lost.getMessage().contains("not on the class path"), lost.getMessage());
    }

    /**
     * A real failure of JNA's static initializer, in a child JVM: a jna.tmpdir it may not write.
     * Both opens fail the same way, with one line each, though the second sees NoClassDefFoundError.
     */
    @Test
    void aJnaThatCannotUnpackItsLibraryFailsOpenWithOneLine() throws IOException, InterruptedException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process p = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Djna.tmpdir=/proc/sys",
                "-Djava.util.logging.config.file=/dev/null", "-cp", System.getProperty("java.class.path"),
                JnaFailureProbe.class.getName()).redirectErrorStream(false).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "probe timed out");
        assertEquals(0, p.exitValue(), out + err);
        List<String> lines = out.lines().toList();
        assertEquals(2, lines.size(), out + err);
        String expected = "UNSUPPORTED|the jna binding cannot run here: JNA cannot unpack libjnidispatch.so (Failed to"
                + " create temporary file for /com/sun/jna/linux-x86-64/libjnidispatch.so library: JNA temporary"
                + " directory '/proc/sys' is not writable)|";
        assertTrue(lines.get(0).startsWith(expected), out);
        assertEquals(lines.get(0), lines.get(1), "the second open (NoClassDefFoundError) says the same");
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
