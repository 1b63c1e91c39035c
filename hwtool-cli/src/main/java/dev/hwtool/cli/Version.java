package dev.hwtool.cli;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version Maven wrote into version.properties at build time. */
public final class Version implements IVersionProvider {

    public static String current() {
        return Known.CURRENT;
    }

    /** Read once per JVM: the jar's version does not change while it runs, and a batch asks for it on every line. */
    private static final class Known {
        static final String CURRENT = read();
        static final String JAVA = "Java " + Runtime.version() + " (" + System.getProperty("java.vendor") + ")";
    }

    private static String read() {
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
        // picocli asks for it each time a subcommand joins the INHERIT-scoped root (CommandSpec.initFrom).
        return new String[]{"hwtool " + current(), Known.JAVA};
    }
}
