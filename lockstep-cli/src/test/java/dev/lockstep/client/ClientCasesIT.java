package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared protocol cases of {@code clients/cases.json} through the Java client, against a real
 * worker and broker: the list the Python and Node clients pass too (ClientSuitesIT). Each case is
 * a {@link CaseRun}.
 */
class ClientCasesIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Path CASES = Path.of("..", "clients", "cases.json");

    /** The runner's clients by the name a step gives: its own (""), {@code other}, {@code proxied}. */
    private static final Map<String, LockClient> clients = new ConcurrentHashMap<>();

    @BeforeAll
    static void start() {
        env.startWorker();
        clients.put("", env.startClient());
    }

    private static LockClient client(String name) {
        return clients.computeIfAbsent(name, n -> switch (n) {
            case "other" -> env.startClient();
            case "proxied" -> env.startClient(LockClientSettings.defaults(env.proxiedKafka()).withTopics(env.topics()));
            default -> throw new IllegalArgumentException("unknown client " + n);
        });
    }

    private static void link(String action) {
        switch (action) {
            case "cut" -> env.brokerLink().cut();
            case "blackhole" -> env.brokerLink().blackhole();
            case "heal" -> env.brokerLink().heal();
            default -> throw new IllegalArgumentException("unknown link action " + action);
        }
    }

    @TestFactory
    Stream<DynamicTest> everyCaseAsTheOtherClientsRunIt() throws IOException {
        JsonNode cases = new ObjectMapper().readTree(CASES.toFile()).path("cases");
        assertThat(cases.size()).as("cases in " + CASES).isPositive();
        return StreamSupport.stream(cases.spliterator(), false)
                .map(c -> DynamicTest.dynamicTest(c.path("name").asText(), () -> run(c)));
    }

    private static void run(JsonNode testCase) throws InterruptedException {
        CaseRun run = new CaseRun(testCase.path("name").asText(), ClientCasesIT::client, ClientCasesIT::link);
        try {
            run.run(testCase.path("steps"), "");
        } finally {
            run.close();
        }
    }
}
