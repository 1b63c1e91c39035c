package dev.hwtool.cli;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version Maven wrote into version.properties at build time. */
public final class Version implements IVersionProvider {

    public static String current() {
        // The jar's manifest (Implementation-Version, written by the build) came with the class's
        // Package; version.properties is for classes run from a directory (tests, the IDE).
        Package pkg = Version.class.getPackage();
        String fromJar = pkg == null ? null : pkg.getImplementationVersion();
        if (fromJar != null) {
            return fromJar;
        }
        try (InputStream in = Version.class.getResourceAsStream("/dev/hwtool/cli/version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public String[] getVersion() {
        return new String[]{"hwtool " + current(), "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")"};
    }
}
