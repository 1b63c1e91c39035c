package dev.hwtool.io;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Resources.read answers what the class loader answers, from a jar and from a directory. */
class ResourcesTest {

    @Test
    void fromAJarTheSameBytesAsTheClassLoader() throws IOException {
        Class<?> inJar = Test.class; // junit-jupiter-api, a jar on the test class path
        assertTrue(inJar.getProtectionDomain().getCodeSource().getLocation().getPath().endsWith(".jar"));
        String name = "org/junit/jupiter/api/Test.class";
        assertArrayEquals(viaLoader(inJar, name), Resources.read(inJar, name));
        assertArrayEquals(viaLoader(inJar, name), Resources.read(inJar, name), "read again from the jar kept open");
        assertNull(Resources.read(inJar, "org/junit/jupiter/api/NoSuchResource.txt"));
    }

    @Test
    void fromADirectoryThroughTheClassLoader() throws IOException {
        assertTrue(!ResourcesTest.class.getProtectionDomain().getCodeSource().getLocation().getPath().endsWith(".jar"));
        String name = "dev/hwtool/io/ResourcesTest.class";
        assertArrayEquals(viaLoader(ResourcesTest.class, name), Resources.read(ResourcesTest.class, name));
        assertNull(Resources.read(ResourcesTest.class, "dev/hwtool/io/NoSuchResource.txt"));
    }

    private static byte[] viaLoader(Class<?> anchor, String name) throws IOException {
        try (InputStream in = anchor.getResourceAsStream("/" + name)) {
            return in.readAllBytes();
        }
    }
}
