package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import dev.lockstep.testkit.LockstepExtension;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The shared protocol cases of {@code clients/cases.json} through the Java client, against a real
 * worker and broker: the list the Python and Node clients pass too (ClientSuitesIT).
 */
class ClientCasesIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final Path CASES = Path.of("..", "clients", "cases.json");

    private static LockClient client;

    /** What one step came to: its outcome, the lease in the reply, the retry hint, the invalid fields. */
    private record Result(String outcome, Optional<Lease> lease, Optional<Duration> retryAfter, List<String> fields) {

        static Result of(Verdict verdict) {
            Optional<Lease> lease = Optional.empty();
            if (verdict instanceof Verdict.Acquired acquired) {
                lease = Optional.of(acquired.lease());
            } else if (verdict instanceof Verdict.Renewed renewed) {
                lease = Optional.of(renewed.lease());
            } else if (verdict instanceof Verdict.Locked locked) {
                lease = Optional.of(locked.lease());
            }
            Optional<Duration> retryAfter = verdict instanceof Verdict.NotAcquired n ? Optional.of(n.retryAfter())
                    : Optional.empty();
            List<String> fields = verdict instanceof Verdict.Invalid invalid ? fields(invalid.problem()) : List.of();
            return new Result(verdict.outcome().wireName(), lease, retryAfter, fields);
        }

        static List<String> fields(Problem problem) {
            return problem.errors().stream().map(error -> error.field()).toList();
        }
    }

    @BeforeAll
    static void start() {
        env.startWorker();
        client = env.startClient();
    }


    @TestFactory
    Stream<DynamicTest> everyCaseAsTheOtherClientsRunIt() throws IOException {
        JsonNode cases = new ObjectMapper().readTree(CASES.toFile()).path("cases");
        assertThat(cases.size()).as("cases in " + CASES).isPositive();
        return StreamSupport.stream(cases.spliterator(), false)
                .map(c -> DynamicTest.dynamicTest(c.path("name").asText(), () -> run(c)));
    }

    private static void run(JsonNode testCase) throws InterruptedException {
        String name = testCase.path("name").asText();
        String resource = "java-" + name.replace(' ', '-') + "-" + UUID.randomUUID().toString().substring(0, 8);
        Map<String, Long> saved = new HashMap<>();
        int number = 0;
        for (JsonNode step : testCase.path("steps")) {
            number++;
            String where = name + ", step " + number + " (" + step.path("call").asText() + ")";
            if (step.path("call").asText().equals("sleep")) {
                Thread.sleep(step.path("sleep_ms").asLong());
                continue;
            }
            OptionalLong token = OptionalLong.empty();
            if (step.has("token")) {
                token = OptionalLong.of(step.path("token").asText().equals("wrong")
                        ? saved.values().stream().mapToLong(Long::longValue).max().orElse(0) + 1000
                        : saved.get(step.path("token").asText()));
            }
            Result result = call(step, resource, token);
            assertThat(result.outcome()).as(where).isEqualTo(step.path("expect").asText());
            if (step.has("field")) {
                assertThat(result.fields()).as(where).contains(step.path("field").asText());
            }
            if (step.has("save")) {
                saved.put(step.path("save").asText(), result.lease().orElseThrow().fencingToken());
            }
            if (step.has("same_token")) {
                assertThat(result.lease().orElseThrow().fencingToken()).as(where)
                        .isEqualTo(saved.get(step.path("same_token").asText()));
            }
            if (step.has("greater_token")) {
                assertThat(result.lease().orElseThrow().fencingToken()).as(where)
                        .isGreaterThan(saved.get(step.path("greater_token").asText()));
            }
            if (step.has("lock_owner")) {
                assertThat(result.lease().orElseThrow().owner()).as(where).isEqualTo(step.path("lock_owner").asText());
            }
            if (step.has("permit")) {
                assertThat(result.lease().orElseThrow().permit()).as(where).isEqualTo(step.path("permit").asInt());
            }
            if (step.has("lock_value")) {
                assertThat(result.lease().orElseThrow().value()).as(where).contains(step.path("lock_value").asText());
            }
            if (step.path("retry_after").asBoolean()) {
                assertThat(result.retryAfter().orElseThrow()).as(where).isPositive();
            }
        }
    }

    /** The step's share: {@code limit} alone or {@code mode} shared ask for a shared permit, as on the wire. */
    private static Share share(JsonNode step) {
        if (step.path("mode").asText().equals("exclusive") || !step.has("mode") && !step.has("limit")) {
            return Share.EXCLUSIVE;
        }
        return Share.shared(step.has("limit") ? step.path("limit").asInt() : Share.MAX_LIMIT);
    }

    private static Result call(JsonNode step, String resource, OptionalLong token) {
        BlockingLockClient blocking = client.blocking();
        String owner = step.path("owner").asText();
        Duration ttl = Duration.ofSeconds(step.path("ttl").asLong());
        try {
            return switch (step.path("call").asText()) {
                case "acquire" -> step.has("value")
                        ? Result.of(blocking.send(new Command.Acquire(LockClient.newRequestId(), resource, owner, ttl,
                                Duration.ZERO, share(step), Optional.of(step.path("value").asText()))).reply())
                        : Result.of(blocking.acquire(resource, owner, ttl, Duration.ZERO, share(step)));
                case "renew" -> Result.of(blocking.renew(resource, owner, ttl, token));
                case "release" -> Result.of(blocking.release(resource, owner, token));
                case "status" -> Result.of(blocking.status(resource));
                case "try_acquire" -> {
                    Optional<HeldLease> held = blocking.tryAcquire(resource, owner, ttl,
                            Duration.ofMillis(step.path("wait_ms").asLong()));
                    // The held lease's own status reply names the lease it holds.
                    Optional<Lease> lease = held.map(h -> ((Verdict.Locked) blocking.status(resource)).lease());
                    held.ifPresent(HeldLease::close);
                    yield new Result(held.isPresent() ? "acquired" : "not_acquired", lease, Optional.empty(), List.of());
                }
                default -> throw new IllegalArgumentException("unknown call " + step.path("call").asText());
            };
        } catch (InvalidCommandException e) {
            return new Result("invalid", Optional.empty(), Optional.empty(), Result.fields(e.problem()));
        }
    }
}
