package dev.lockstep.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.client.LockTimeoutException;
import dev.lockstep.core.Verdict;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The {@link BrokerLink}: a client bootstrapped behind it is answered while it is open; cut off or
 * behind a black hole, its requests time out while a client with the direct address (and the
 * worker) goes on; healed, it is answered again. Child processes drive it over HTTP.
 */
class BrokerLinkIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(3);
    private static final Duration TTL = Duration.ofMinutes(1);
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static LockClient direct;
    private static LockClient behind;

    @BeforeAll
    static void start() {
        env.startWorker();
        direct = env.startClient();
        behind = env.startClient(LockClientSettings.defaults(env.proxiedKafka()).withTopics(env.topics())
                .withRequestTimeout(REQUEST_TIMEOUT));
    }

    @Test
    void aClientCutOffTimesOutWhileADirectOneIsAnsweredAndHealedItIsAnsweredAgain() {
        assertThat(behind.blocking().acquire("cut", "behind", TTL)).isInstanceOf(Verdict.Acquired.class);

        env.brokerLink().cut();
        assertThat(env.brokerLink().state()).isEqualTo(BrokerLink.State.CUT);
        assertTimesOut(behind);
        assertThat(direct.blocking().status("cut")).as("the direct client and the worker are not cut off")
                .isInstanceOf(Verdict.Locked.class);

        env.brokerLink().heal();
        assertAnsweredAgain(behind, "cut");
    }

    @Test
    void aClientBehindABlackHoleTimesOutWhileADirectOneIsAnsweredAndHealedItIsAnsweredAgain() {
        assertThat(behind.blocking().acquire("blackhole", "behind", TTL)).isInstanceOf(Verdict.Acquired.class);

        env.brokerLink().blackhole();
        assertTimesOut(behind);
        assertThat(direct.blocking().status("blackhole")).isInstanceOf(Verdict.Locked.class);

        env.brokerLink().heal();
        assertAnsweredAgain(behind, "blackhole");
    }

    @Test
    void aChildProcessDrivesTheLinkOverHttp() throws Exception {
        URI control = URI.create(env.brokerLink().environment().get(BrokerLink.CONTROL_ENV));
        assertThat(env.brokerLink().environment()).containsEntry(BrokerLink.BOOTSTRAP_ENV,
                env.proxiedKafka().bootstrapServers());
        assertThat(behind.blocking().acquire("http", "behind", TTL)).isInstanceOf(Verdict.Acquired.class);

        assertThat(post(control, "/cut")).isEqualTo(204);
        assertThat(env.brokerLink().state()).isEqualTo(BrokerLink.State.CUT);
        assertTimesOut(behind);
        assertThat(post(control, "/blackhole")).isEqualTo(204);
        assertThat(env.brokerLink().state()).isEqualTo(BrokerLink.State.BLACKHOLE);
        assertThat(post(control, "/heal")).isEqualTo(204);
        assertThat(env.brokerLink().state()).isEqualTo(BrokerLink.State.OPEN);
        assertAnsweredAgain(behind, "http");

        assertThat(post(control, "/sever")).as("an unknown action").isEqualTo(404);
        assertThat(HTTP.send(HttpRequest.newBuilder(control.resolve("/cut")).GET().build(),
                HttpResponse.BodyHandlers.discarding()).statusCode()).as("only POST acts").isEqualTo(405);
        assertThat(env.brokerLink().state()).isEqualTo(BrokerLink.State.OPEN);
    }

    private static void assertTimesOut(LockClient client) {
        assertThat(client.status("anything")).failsWithin(REQUEST_TIMEOUT.plusSeconds(10))
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(LockTimeoutException.class);
    }

    /** Reconnecting takes the client's back-off, up to a second; its first request may still time out. */
    private static void assertAnsweredAgain(LockClient client, String resource) {
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                .until(() -> client.blocking().status(resource) instanceof Verdict.Locked);
    }

    private static int post(URI control, String action) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(control.resolve(action)).POST(HttpRequest.BodyPublishers.noBody())
                .build(), HttpResponse.BodyHandlers.discarding()).statusCode();
    }
}
