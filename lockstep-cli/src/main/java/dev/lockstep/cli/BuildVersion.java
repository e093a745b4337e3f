package dev.lockstep.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;
import picocli.CommandLine.IVersionProvider;

/** {@code lockstep --version}: the build's version and the commit it was built from. */
final class BuildVersion implements IVersionProvider {

    @Override
    public String[] getVersion() {
        Properties build = new Properties();
        try (InputStream in = BuildVersion.class.getResourceAsStream("/lockstep/version.properties")) {
            if (in != null) {
                build.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading the build's version", e);
        }
        String commit = known(build.getProperty("commit"));
        return new String[] {"lockstep " + known(build.getProperty("version")) + " (commit " + commit
                + ("true".equals(build.getProperty("dirty")) ? ", with uncommitted changes" : "") + ")"};
    }

    /** A value the build filled in, or "unknown" (a build without git leaves the placeholder). */
    private static String known(String value) {
        return value == null || value.isBlank() || value.startsWith("${") ? "unknown" : value;
    }
}
