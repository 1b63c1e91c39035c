package dev.hwtool.cli;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The build compiles picocli from its published sources jar (pom.xml: for the AOT cache, which
 * skips the stock jar's Java 5 class files) and changes none of it: every picocli source file the
 * build compiles is the jar's entry, byte for byte.
 */
class PicocliSourceTest {

    @Test
    void thePicocliSourceTheBuildCompilesIsTheSourcesJarsOwn() throws IOException {
        Path dir = Path.of(property("hwtool.picocli.sources"));
        Path jar = Path.of(property("hwtool.picocli.sources.jar"));
        assertTrue(Files.isRegularFile(jar), jar + " is missing");
        List<Path> compiled;
        try (Stream<Path> s = Files.walk(dir)) {
            compiled = s.filter(p -> p.toString().endsWith(".java")).sorted().toList();
        }
        assertEquals(List.of(dir.resolve("picocli/AutoComplete.java"), dir.resolve("picocli/CommandLine.java")), compiled);
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (Path p : compiled) {
                ZipEntry e = zip.getEntry(dir.relativize(p).toString());
                assertNotNull(e, p + " is not in " + jar);
                try (InputStream in = zip.getInputStream(e)) {
                    assertArrayEquals(in.readAllBytes(), Files.readAllBytes(p), p + " differs from " + jar + "!" + e.getName());
                }
            }
        }
        // and the class the CLI runs is the one compiled from it (not the stock jar's, nor another copy)
        try {
            assertEquals(Path.of(property("hwtool.classes.dir")),
                    Path.of(picocli.CommandLine.class.getProtectionDomain().getCodeSource().getLocation().toURI()));
        } catch (java.net.URISyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private static String property(String name) {
        String v = System.getProperty(name);
        assertNotNull(v, name + " is not set (hwtool-cli/pom.xml, surefire's systemPropertyVariables)");
        return v;
    }
}
