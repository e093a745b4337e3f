package dev.lockstep.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.client.LockClient;
import dev.lockstep.protocol.ResourcePartition;
import dev.lockstep.testkit.LockstepExtension;
import dev.lockstep.testkit.RunningWorker;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The seed's HTTP lock API through {@link LockGateway}, against a real worker, broker and
 * database: every status code, the seed's behaviours, its attack cases ATK-01..12, idempotency,
 * and a gateway that answers 504 (never a wrong answer) while no worker runs.
 */
class GatewayIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final ObjectMapper JSON = new ObjectMapper();
    private static RunningWorker worker;
    private static LockClient client;
    private static OpsServer server;

    @BeforeAll
    static void start() {
        worker = env.startWorker();
        client = env.startClient();
        server = OpsServer.start("127.0.0.1", 0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT), Optional.empty(),
                Optional.of(new LockGateway(client, Duration.ofSeconds(20))));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String fresh(String name) {
        return name + "-" + UUID.randomUUID();
    }

    private static HttpResponse<String> call(String method, String path, String body, String... headers)
            throws IOException, InterruptedException {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + path))
                .timeout(Duration.ofSeconds(30))
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(body));
        if (headers.length > 0) {
            request.headers(headers);
        }
        return HTTP.send(request.build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String lock(String resource) {
        return "/locks/" + URLEncoder.encode(resource, StandardCharsets.UTF_8).replace("+", "%20");
    }

    private static HttpResponse<String> acquire(String resource, String owner, Object ttl) throws Exception {
        return call("POST", lock(resource), "{\"owner\":\"" + owner + "\",\"ttl_seconds\":" + ttl + "}");
    }

    private static JsonNode json(HttpResponse<String> response) throws IOException {
        return JSON.readTree(response.body());
    }

    private static void assertProblem(HttpResponse<String> response, int status, String type) throws IOException {
        assertThat(response.statusCode()).as(response.body()).isEqualTo(status);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                value -> assertThat(value).startsWith("application/problem+json"));
        JsonNode problem = json(response);
        assertThat(problem.path("type").asText()).isEqualTo(type);
        assertThat(problem.path("status").asInt()).isEqualTo(status);
        assertThat(problem.path("title").asText()).isNotBlank();
        assertThat(problem.path("request_id").asText()).isNotBlank();
    }

    @Test
    void everyStatusCodeOfTheApi() throws Exception {
        String resource = fresh("payment");
        HttpResponse<String> acquired = acquire(resource, "worker-1", 30);
        assertThat(acquired.statusCode()).as(acquired.body()).isEqualTo(200);
        long token = json(acquired).path("lock").path("fencing_token").asLong();
        assertThat(token).isPositive();
        assertThat(json(acquired).path("acquired").asBoolean()).isTrue();

        HttpResponse<String> held = acquire(resource, "worker-2", 30);
        assertProblem(held, 409, "urn:lockstep:problem:held");
        assertThat(held.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
                seconds -> assertThat(seconds).isBetween(1L, 31L)); // the TTL, and the half second a lease is dated late

        HttpResponse<String> waited = call("POST", lock(resource), "{\"owner\":\"worker-2\",\"ttl_seconds\":30,"
                + "\"wait_seconds\":1}");
        assertProblem(waited, 409, "urn:lockstep:problem:held");
        assertThat(json(waited).path("detail").asText()).as("it waited in the queue").contains("wait_expired");
        HttpResponse<String> tooLong = call("POST", lock(resource), "{\"owner\":\"worker-2\",\"ttl_seconds\":30,"
                + "\"wait_seconds\":301}");
        assertProblem(tooLong, 422, "urn:lockstep:problem:invalid-command");
        assertThat(json(tooLong).path("errors").get(0).path("field").asText()).isEqualTo("wait_seconds");

        HttpResponse<String> status = call("GET", lock(resource), null);
        assertThat(status.statusCode()).isEqualTo(200);
        assertThat(json(status).path("lock").path("owner").asText()).isEqualTo("worker-1");

        assertProblem(call("DELETE", lock(resource), "{\"owner\":\"worker-2\"}"), 403, "urn:lockstep:problem:forbidden");
        assertProblem(call("POST", lock(resource) + "/renew", "{\"owner\":\"worker-2\",\"ttl_seconds\":30}"), 403,
                "urn:lockstep:problem:forbidden");
        HttpResponse<String> renewed = call("POST", lock(resource) + "/renew",
                "{\"owner\":\"worker-1\",\"ttl_seconds\":60,\"fencing_token\":" + token + "}");
        assertThat(renewed.statusCode()).as(renewed.body()).isEqualTo(200);
        assertThat(json(renewed).path("lock").path("fencing_token").asLong()).isEqualTo(token);

        assertProblem(call("DELETE", lock(resource), "{\"owner\":\"worker-1\",\"fencing_token\":" + (token + 1) + "}"),
                403, "urn:lockstep:problem:forbidden");
        HttpResponse<String> released = call("DELETE", lock(resource), "{\"owner\":\"worker-1\",\"fencing_token\":" + token + "}");
        assertThat(released.statusCode()).as(released.body()).isEqualTo(204);
        assertThat(released.body()).isEmpty();

        assertProblem(call("GET", lock(resource), null), 404, "urn:lockstep:problem:not-found");
        assertProblem(call("DELETE", lock(resource), "{\"owner\":\"worker-1\"}"), 404, "urn:lockstep:problem:not-found");
        assertProblem(call("POST", lock(resource) + "/renew", "{\"owner\":\"worker-1\",\"ttl_seconds\":30}"), 404,
                "urn:lockstep:problem:not-found");

        HttpResponse<String> invalid = acquire(resource, "worker-1", 0);
        assertProblem(invalid, 422, "urn:lockstep:problem:invalid-command");
        assertThat(json(invalid).path("errors").get(0).path("field").asText()).isEqualTo("ttl_seconds");
        assertProblem(call("POST", lock(resource), "[1,2]"), 422, "urn:lockstep:problem:invalid-command");
        assertProblem(call("POST", lock(resource), "{\"owner\":\"a\",\"owner\":\"b\",\"ttl_seconds\":5}"), 422,
                "urn:lockstep:problem:invalid-command");
    }

    @Test
    void aRequestThatWaitsIsHeldUntilTheHolderReleases() throws Exception {
        String resource = fresh("queue");
        long first = json(acquire(resource, "holder", 30)).path("lock").path("fencing_token").asLong();
        CompletableFuture<HttpResponse<String>> waiting = CompletableFuture.supplyAsync(() -> {
            try {
                return call("POST", lock(resource), "{\"owner\":\"next\",\"ttl_seconds\":30,\"wait_seconds\":20}");
            } catch (IOException | InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> json(call("GET", lock(resource), null))
                .path("waiters").asInt() == 1);
        assertThat(waiting).isNotDone();
        assertThat(json(call("GET", lock(resource) + "?owner=next", null)).path("position").asInt())
                .as("the waiter's own owner learns its place").isEqualTo(1);
        assertThat(json(call("GET", lock(resource) + "?owner=holder", null)).has("position")).isFalse();

        assertThat(call("DELETE", lock(resource), "{\"owner\":\"holder\"}").statusCode()).isEqualTo(204);

        HttpResponse<String> granted = waiting.get(10, TimeUnit.SECONDS);
        assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
        assertThat(json(granted).path("lock").path("owner").asText()).isEqualTo("next");
        assertThat(json(granted).path("lock").path("fencing_token").asLong()).isGreaterThan(first);
    }

    /** A semaphore over HTTP: mode and limit pass to the worker, and a third holder is refused. */
    @Test
    void aSharedPermitOfALimitedResource() throws Exception {
        String resource = fresh("pool");
        String twoOf = ",\"ttl_seconds\":30,\"limit\":2}";
        JsonNode first = json(call("POST", lock(resource), "{\"owner\":\"a\"" + twoOf));
        assertThat(first.path("lock").path("mode").asText()).isEqualTo("shared");
        assertThat(first.path("lock").path("permit").asInt()).isZero();
        assertThat(json(call("POST", lock(resource), "{\"owner\":\"b\"" + twoOf)).path("lock").path("permit").asInt())
                .isEqualTo(1);
        assertThat(call("POST", lock(resource), "{\"owner\":\"c\"" + twoOf).statusCode()).isEqualTo(409);
        HttpResponse<String> otherLimit = call("POST", lock(resource), "{\"owner\":\"c\",\"ttl_seconds\":30,\"limit\":3}");
        assertProblem(otherLimit, 422, "urn:lockstep:problem:invalid-command");
        assertThat(otherLimit.body()).contains("admits 2 shared holders");
        assertThat(json(call("GET", lock(resource), null)).path("holders").asInt()).isEqualTo(2);
        assertThat(call("POST", lock(resource), "{\"owner\":\"w\",\"ttl_seconds\":30}").statusCode())
                .as("the whole resource, while two share it").isEqualTo(409);
    }

    /** A leader's value over HTTP: it passes to the worker, a GET shows it, and a bad one is a 422 naming it. */
    @Test
    void aLeasesValue() throws Exception {
        String resource = fresh("group");
        JsonNode granted = json(call("POST", lock(resource), "{\"owner\":\"a\",\"ttl_seconds\":30,\"value\":\"10.0.0.7:8080\"}"));
        assertThat(granted.path("lock").path("value").asText()).isEqualTo("10.0.0.7:8080");
        assertThat(json(call("GET", lock(resource), null)).path("lock").path("value").asText()).isEqualTo("10.0.0.7:8080");
        HttpResponse<String> empty = call("POST", lock(resource), "{\"owner\":\"b\",\"ttl_seconds\":30,\"value\":\"\"}");
        assertProblem(empty, 422, "urn:lockstep:problem:invalid-command");
        assertThat(empty.body()).contains("\"field\":\"value\"");
    }

    @Test
    void theSeedsBehaviours() throws Exception {
        String resource = fresh("job");
        long first = json(acquire(resource, "a", 1)).path("lock").path("fencing_token").asLong();
        HttpResponse<String> again = acquire(resource, "a", 30);
        assertThat(again.statusCode()).as("the same owner re-acquires: extended").isEqualTo(200);
        assertThat(json(again).path("lock").path("fencing_token").asLong()).isEqualTo(first);
        assertThat(json(call("GET", lock(resource), null)).path("lock").path("expires_at").asText())
                .isEqualTo(json(again).path("lock").path("expires_at").asText());

        String expiring = fresh("expiring");
        long old = json(acquire(expiring, "a", 1)).path("lock").path("fencing_token").asLong();
        Thread.sleep(2_500); // a 1 s lease, dated half a second late, ends by then
        assertProblem(call("GET", lock(expiring), null), 404, "urn:lockstep:problem:not-found");
        assertProblem(call("POST", lock(expiring) + "/renew", "{\"owner\":\"a\",\"ttl_seconds\":30}"), 404,
                "urn:lockstep:problem:not-found");
        assertProblem(call("DELETE", lock(expiring), "{\"owner\":\"a\"}"), 404, "urn:lockstep:problem:not-found");
        HttpResponse<String> taken = acquire(expiring, "b", 30);
        assertThat(taken.statusCode()).as("an expired lock can be taken by anyone").isEqualTo(200);
        assertThat(json(taken).path("lock").path("fencing_token").asLong()).isGreaterThan(old);

        for (String body : List.of("{\"ttl_seconds\":30}", "{\"owner\":\"\",\"ttl_seconds\":30}",
                "{\"owner\":\"   \",\"ttl_seconds\":30}", "{\"owner\":\"a\",\"ttl_seconds\":\"30\"}",
                "{\"owner\":\"a\",\"ttl_seconds\":30.5}", "{\"owner\":\"a\",\"ttl_seconds\":-100}",
                "{\"owner\":\"a\"}", "")) {
            assertProblem(call("POST", lock(fresh("strict")), body), 422, "urn:lockstep:problem:invalid-command");
        }
    }

    @Test
    void attackCasesAreBlocked() throws Exception {
        String payment = fresh("payment:42");
        assertThat(acquire(payment, "owner", 30).statusCode()).isEqualTo(200);
        assertThat(acquire(payment, "attacker", 30).statusCode()).as("ATK-01").isEqualTo(409);
        assertThat(call("DELETE", lock(payment), "{\"owner\":\"attacker\"}").statusCode()).as("ATK-02").isEqualTo(403);
        assertThat(call("POST", lock(payment) + "/renew", "{\"owner\":\"attacker\",\"ttl_seconds\":3600}").statusCode())
                .as("ATK-04").isEqualTo(403);
        assertThat(acquire(fresh("atk05"), "a", 0).statusCode()).as("ATK-05 zero").isEqualTo(422);
        assertThat(acquire(fresh("atk05"), "a", -100).statusCode()).as("ATK-05 negative").isEqualTo(422);

        String injected = "resource'; DROP TABLE distributed_locks; --" + UUID.randomUUID();
        HttpResponse<String> literal = acquire(injected, "a", 30);
        assertThat(literal.statusCode()).as("ATK-06").isEqualTo(200);
        assertThat(json(call("GET", lock(injected), null)).path("lock").path("resource").asText()).isEqualTo(injected);
        assertThat(call("GET", lock(payment), null).statusCode()).as("the table is still there").isEqualTo(200);

        assertThat(call("DELETE", lock(payment), "{\"owner\":\" \"}").statusCode()).as("ATK-07").isEqualTo(422);
        assertThat(acquire(fresh("atk08"), "a", "\"3600\"").statusCode()).as("ATK-08 string").isEqualTo(422);
        assertThat(acquire(fresh("atk08"), "a", 60.5).statusCode()).as("ATK-08 float").isEqualTo(422);
        assertThat(acquire(payment, "owner", 30).statusCode()).as("ATK-09: allowed by design, extends").isEqualTo(200);

        String raced = fresh("race");
        List<CompletableFuture<HttpResponse<String>>> racers = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            String owner = "racer-" + i;
            racers.add(CompletableFuture.supplyAsync(() -> {
                try {
                    return acquire(raced, owner, 30);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }));
        }
        List<Integer> codes = racers.stream().map(CompletableFuture::join).map(HttpResponse::statusCode).toList();
        assertThat(codes).as("ATK-10: one winner").containsOnly(200, 409).filteredOn(code -> code == 200).hasSize(1);

        assertThat(call("GET", lock(fresh("never")), null).statusCode()).as("ATK-11 missing").isEqualTo(404);
        String brief = fresh("brief");
        acquire(brief, "a", 1);
        Thread.sleep(2_500); // a 1 s lease, dated half a second late, ends by then
        assertThat(call("GET", lock(brief), null).statusCode()).as("ATK-11 expired").isEqualTo(404);
        HttpResponse<String> stolen = acquire(brief, "attacker", 30);
        assertThat(stolen.statusCode()).as("ATK-03: an expired lock is anyone's, by design").isEqualTo(200);

        HttpResponse<String> tooLong = acquire("x".repeat(300), "a", 30);
        assertProblem(tooLong, 422, "urn:lockstep:problem:invalid-command");
        assertThat(json(tooLong).path("errors").toString()).as("ATK-12").contains("resource");
        HttpResponse<String> huge = acquire("y".repeat(20_000), "a", 30);
        assertThat(huge.statusCode()).as("ATK-12: a path beyond the server's limit").isIn(414, 431, 422);
    }

    @Test
    void anIdempotencyKeyAppliesARetriedRequestOnce() throws Exception {
        String resource = fresh("idempotent");
        String key = UUID.randomUUID().toString();
        String body = "{\"owner\":\"a\",\"ttl_seconds\":30}";
        HttpResponse<String> first = call("POST", lock(resource), body, LockGateway.IDEMPOTENCY_KEY, key);
        HttpResponse<String> retried = call("POST", lock(resource), body, LockGateway.IDEMPOTENCY_KEY, key);
        assertThat(first.statusCode()).isEqualTo(200);
        assertThat(retried.statusCode()).isEqualTo(200);
        assertThat(retried.body()).as("the stored reply, byte for byte").isEqualTo(first.body());
        assertThat(json(first).path("request_id").asText()).isEqualTo(key);
        HttpResponse<String> reused = call("POST", lock(resource), "{\"owner\":\"b\",\"ttl_seconds\":30}",
                LockGateway.IDEMPOTENCY_KEY, key);
        assertProblem(reused, 422, "urn:lockstep:problem:invalid-command");
        assertThat(reused.body()).contains("request_id");
    }

    /**
     * Two callers sending one Idempotency-Key with different bodies at the same moment: each gets
     * its own answer or a refusal (409 while the other waits, 422 after), never the other's lock.
     */
    @Test
    void twoCallersRacingWithOneIdempotencyKeyNeverGetEachOthersLock() throws Exception {
        for (int round = 0; round < 10; round++) {
            String resource = fresh("race");
            String key = UUID.randomUUID().toString();
            List<String> owners = List.of("alice", "bob");
            List<CompletableFuture<HttpResponse<String>>> calls = owners.stream()
                    .map(owner -> CompletableFuture.supplyAsync(() -> {
                        try {
                            return call("POST", lock(resource), "{\"owner\":\"" + owner + "\",\"ttl_seconds\":30}",
                                    LockGateway.IDEMPOTENCY_KEY, key);
                        } catch (IOException | InterruptedException e) {
                            throw new IllegalStateException(e);
                        }
                    })).toList();
            int granted = 0;
            for (int i = 0; i < owners.size(); i++) {
                HttpResponse<String> response = calls.get(i).get();
                if (response.statusCode() == 200) {
                    granted++;
                    assertThat(json(response).path("lock").path("owner").asText()).as(response.body())
                            .isEqualTo(owners.get(i));
                } else {
                    assertThat(response.statusCode()).as(response.body()).isIn(409, 422);
                }
            }
            assertThat(granted).as("one of the two is applied").isEqualTo(1);
        }
    }

    /** A key is one request whichever partition the next use would land on: the worker alone could not tell. */
    @Test
    void anIdempotencyKeyReusedForAResourceOnAnotherPartitionIsRefused() throws Exception {
        String first = fresh("reuse");
        String other = fresh("reuse");
        while (partitionOf(other) == partitionOf(first)) {
            other = fresh("reuse");
        }
        String key = UUID.randomUUID().toString();
        String body = "{\"owner\":\"a\",\"ttl_seconds\":30}";
        assertThat(call("POST", lock(first), body, LockGateway.IDEMPOTENCY_KEY, key).statusCode()).isEqualTo(200);
        HttpResponse<String> reused = call("POST", lock(other), body, LockGateway.IDEMPOTENCY_KEY, key);
        assertProblem(reused, 422, "urn:lockstep:problem:invalid-command");
        assertThat(json(reused).path("errors").get(0).path("field").asText()).isEqualTo(LockGateway.IDEMPOTENCY_KEY);
        assertThat(call("GET", lock(other), null).statusCode()).as("not applied").isEqualTo(404);
    }

    private static int partitionOf(String resource) {
        return ResourcePartition.of(resource, LockstepExtension.PARTITIONS);
    }

    /**
     * A caller answered 200 holds the lease: a retry with its key that times out (no worker runs) is
     * answered 504 to be retried, and cancels nothing, so the lease stays its caller's; a retry once
     * a worker runs is answered with the stored reply.
     */
    @Test
    void aRetryOfAnAnsweredAcquireThatTimesOutCancelsNothing() throws Exception {
        String resource = fresh("answered");
        String key = UUID.randomUUID().toString();
        String body = "{\"owner\":\"a\",\"ttl_seconds\":3600}";
        HttpResponse<String> granted;
        try (OpsServer impatient = OpsServer.start("127.0.0.1", 0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                Optional.empty(), Optional.of(new LockGateway(client, Duration.ofSeconds(2))))) {
            URI uri = URI.create("http://127.0.0.1:" + impatient.port() + lock(resource));
            HttpRequest acquire = HttpRequest.newBuilder(uri).header(LockGateway.IDEMPOTENCY_KEY, key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build();
            granted = HTTP.send(acquire, HttpResponse.BodyHandlers.ofString());
            assertThat(granted.statusCode()).as(granted.body()).isEqualTo(200);
            worker.close();
            try {
                HttpResponse<String> timedOut = HTTP.send(acquire, HttpResponse.BodyHandlers.ofString());
                assertProblem(timedOut, 504, "urn:lockstep:problem:timeout");
                assertThat(json(timedOut).path("detail").asText()).as("to be retried with its key, not cancelled")
                        .contains(key).doesNotContain("cancelled");
            } finally {
                worker = env.startWorker();
            }
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                HttpResponse<String> retried = HTTP.send(acquire, HttpResponse.BodyHandlers.ofString());
                assertThat(retried.statusCode()).as(retried.body()).isEqualTo(200);
                assertThat(retried.body()).as("the stored reply").isEqualTo(granted.body());
            });
        }
        HttpResponse<String> status = call("GET", lock(resource), null);
        assertThat(status.statusCode()).as("the lease its caller was given is not released: " + status.body())
                .isEqualTo(200);
        assertThat(json(status).path("lock").path("fencing_token").asLong())
                .isEqualTo(json(granted).path("lock").path("fencing_token").asLong());
    }

    /**
     * A caller answered 504 gave up: the gateway cancels its acquire, so once a worker applies it,
     * the lease it is granted is released right after, not held for its TTL; the same key again is
     * 409 (its stored reply names a released lease), and a new request gets the lock.
     */
    @Test
    void whileNoWorkerRunsTheGatewayAnswers504AndCancelsTheAcquire() throws Exception {
        String resource = fresh("restart");
        String key = UUID.randomUUID().toString();
        String body = "{\"owner\":\"a\",\"ttl_seconds\":3600}";
        worker.close();
        try (OpsServer impatient = OpsServer.start("127.0.0.1", 0, new PrometheusMeterRegistry(PrometheusConfig.DEFAULT),
                Optional.empty(), Optional.of(new LockGateway(client, Duration.ofSeconds(2))))) {
            URI uri = URI.create("http://127.0.0.1:" + impatient.port() + lock(resource));
            HttpResponse<String> timedOut = HTTP.send(HttpRequest.newBuilder(uri).header(LockGateway.IDEMPOTENCY_KEY, key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertProblem(timedOut, 504, "urn:lockstep:problem:timeout");
            assertThat(json(timedOut).path("request_id").asText()).isEqualTo(key);
            assertThat(json(timedOut).path("detail").asText()).contains("cancelled");
            HttpResponse<String> again = HTTP.send(HttpRequest.newBuilder(uri).header(LockGateway.IDEMPOTENCY_KEY, key)
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            assertProblem(again, 409, "urn:lockstep:problem:cancelled");
        } finally {
            worker = env.startWorker();
        }
        // Applied now, and released right after by its cancellation: free at once, not in an hour.
        HttpResponse<String> status = call("GET", lock(resource), null);
        assertThat(status.statusCode()).as(status.body()).isEqualTo(404);
        HttpResponse<String> fresh = acquire(resource, "b", 60);
        assertThat(fresh.statusCode()).as(fresh.body()).isEqualTo(200);
        assertThat(json(fresh).path("lock").path("owner").asText()).isEqualTo("b");
    }
}
