package dev.hwtool.cli;

import picocli.CommandLine.IVersionProvider;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/** The version Maven wrote into version.properties at build time. */
public final class Version implements IVersionProvider {

    public static String current() {
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
