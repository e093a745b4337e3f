package dev.lockstep.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/** JDKs installed beside the one running the tests, for the launcher's choices that depend on the JVM's release. */
final class JavaHomes {

    private static final Pattern VERSION = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");
    private static final Path INSTALLED = Path.of("/usr/lib/jvm");

    private JavaHomes() {
    }

    /**
     * {@code LOCKSTEP_TEST_JDK25_HOME}, or the newest JDK of release 25 or later under /usr/lib/jvm.
     *
     * @throws IllegalStateException naming what to install or set when there is none
     */
    static Path release25OrLater() throws IOException {
        int release = 25;
        String given = System.getenv("LOCKSTEP_TEST_JDK25_HOME");
        if (given != null && !given.isBlank()) {
            return Path.of(given);
        }
        Optional<Path> found = Optional.empty();
        if (Files.isDirectory(INSTALLED)) {
            try (Stream<Path> homes = Files.list(INSTALLED)) {
                found = homes.filter(home -> release(home) >= release)
                        .max(Comparator.comparingInt(JavaHomes::release));
            }
        }
        return found.orElseThrow(() -> new IllegalStateException("this test needs a JDK of release " + release
                + " or later: install one under " + INSTALLED + " or set LOCKSTEP_TEST_JDK25_HOME to its home"));
    }

    private static int release(Path home) {
        try {
            Matcher matcher = VERSION.matcher(Files.readString(home.resolve("release")));
            return matcher.find() ? Integer.parseInt(matcher.group(1)) : 0;
        } catch (IOException e) {
            return 0;
        }
    }
}
