package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * What a service gets on its class path when it adds lockstep-client: Kafka's client, Jackson,
 * SLF4J's API and lockstep's protocol, and nothing else. No broker, no Scala, no JDBC, no HTTP
 * server, no PostgreSQL binaries, no logging backend. The list is the one the Maven dependency
 * plugin resolves for this module's runtime (written to target/runtime-dependencies.txt by the build).
 */
class LeanClientTest {

    /** groupId:artifactId of everything allowed; a new entry is a decision, made here. */
    private static final Set<String> ALLOWED = Set.of(
            "dev.lockstep:lockstep-protocol",
            "org.apache.kafka:kafka-clients",
            // kafka-clients' compression codecs
            "com.github.luben:zstd-jni",
            "at.yawk.lz4:lz4-java",
            "org.xerial.snappy:snappy-java",
            "com.fasterxml.jackson.core:jackson-databind",
            "com.fasterxml.jackson.core:jackson-core",
            "com.fasterxml.jackson.core:jackson-annotations",
            "org.slf4j:slf4j-api");

    private static final Pattern ARTIFACT = Pattern.compile("^\\s+([^\\s:]+):([^\\s:]+):jar:");

    @Test
    void theClientBringsKafkasClientJacksonAndTheProtocolOnly() throws IOException {
        List<String> resolved = resolved();

        assertThat(resolved).as("the runtime class path the Maven dependency plugin resolved")
                .isNotEmpty()
                .contains("dev.lockstep:lockstep-protocol", "org.apache.kafka:kafka-clients")
                .noneMatch(artifact -> artifact.startsWith("org.scala-lang:"))
                .noneMatch(artifact -> artifact.matches("org\\.apache\\.kafka:kafka(_.*|-server.*|-metadata|-raft|-storage.*)"))
                .noneMatch(artifact -> artifact.startsWith("org.postgresql:") || artifact.startsWith("io.zonky."))
                .noneMatch(artifact -> artifact.startsWith("io.javalin:") || artifact.startsWith("org.eclipse.jetty"))
                .noneMatch(artifact -> artifact.startsWith("dev.lockstep:lockstep-engine")
                        || artifact.startsWith("dev.lockstep:lockstep-worker"))
                .allMatch(ALLOWED::contains);
    }

    private static List<String> resolved() throws IOException {
        Path list = Path.of("target", "runtime-dependencies.txt");
        assertThat(list).as("written by maven-dependency-plugin:list in generate-test-resources; run the tests with Maven")
                .exists();
        return Files.readAllLines(list).stream()
                .map(ARTIFACT::matcher)
                .filter(Matcher::find)
                .map(m -> m.group(1) + ":" + m.group(2))
                .toList();
    }
}
