package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * One case of {@code clients/cases.json} through the Java client: its steps in order, and what they
 * keep (tokens, commands sent, leases held, acquires in flight, ends read). The step kinds are the
 * ones the file's {@code about} documents; the Python and Node runners read them alike.
 */
final class CaseRun {

    /** What one step came to: its outcome, the lease in the reply, the retry hint, the invalid fields, the queue position. */
    record Result(String outcome, Optional<Lease> lease, Optional<Duration> retryAfter, List<String> fields,
            OptionalInt position) {

        static Result of(Verdict verdict) {
            Optional<Lease> lease = Optional.empty();
            OptionalInt position = OptionalInt.empty();
            if (verdict instanceof Verdict.Acquired acquired) {
                lease = Optional.of(acquired.lease());
            } else if (verdict instanceof Verdict.Renewed renewed) {
                lease = Optional.of(renewed.lease());
            } else if (verdict instanceof Verdict.Locked locked) {
                lease = Optional.of(locked.lease());
                position = locked.position();
            }
            Optional<Duration> retryAfter = verdict instanceof Verdict.NotAcquired n ? Optional.of(n.retryAfter())
                    : Optional.empty();
            List<String> fields = verdict instanceof Verdict.Invalid invalid ? fields(invalid.problem()) : List.of();
            return new Result(verdict.outcome().wireName(), lease, retryAfter, fields, position);
        }

        static Result of(String outcome, Optional<Lease> lease) {
            return new Result(outcome, lease, Optional.empty(), List.of(), OptionalInt.empty());
        }

        static List<String> fields(Problem problem) {
            return problem.errors().stream().map(error -> error.field()).toList();
        }
    }

    private final String name;
    private final String resource;
    private final Function<String, LockClient> clients;
    private final Consumer<String> link;
    private boolean linkTouched;
    private final Map<String, Long> saved = new HashMap<>();
    private final Map<String, Command.Acquire> sent = new HashMap<>();
    private final Map<String, HeldLease> held = new HashMap<>();
    private final Map<String, Instant> ends = new HashMap<>();
    private final Map<String, CompletableFuture<Result>> running = new HashMap<>();

    /**
     * {@code clients} gives the runner's own client for "", and {@code other} or {@code proxied};
     * {@code link} does an action (cut, blackhole, heal) to the broker link.
     */
    CaseRun(String name, Function<String, LockClient> clients, Consumer<String> link) {
        this.name = name;
        this.resource = "java-" + name.replace(' ', '-') + "-" + UUID.randomUUID().toString().substring(0, 8);
        this.clients = clients;
        this.link = link;
    }

    void run(JsonNode steps, String prefix) throws InterruptedException {
        int number = 0;
        for (JsonNode step : steps) {
            number++;
            String where = name + ", step " + prefix + number + " (" + step.path("call").asText() + ")";
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(step.path("poll_ms").asLong());
            while (true) {
                try {
                    step(step, where);
                    break;
                } catch (AssertionError e) {
                    if (!step.has("poll_ms") || System.nanoTime() >= deadline) {
                        throw e;
                    }
                    Thread.sleep(100);
                }
            }
        }
    }

    /** Leases still held are released as the case ends, and the next case finds the link open. */
    void close() {
        if (linkTouched) {
            link.accept("heal");
        }
        held.values().forEach(HeldLease::close);
    }

    private void step(JsonNode step, String where) throws InterruptedException {
        LockClient client = clients.apply(step.path("client").asText(""));
        String call = step.path("call").asText();
        switch (call) {
            case "sleep" -> Thread.sleep(step.path("sleep_ms").asLong());
            case "link" -> {
                linkTouched = true;
                link.accept(step.path("action").asText());
            }
            // The Java client reads its reply partition by assignment, without a group: its reader pauses.
            case "rejoin" -> {
                client.repliesAway(true);
                try {
                    run(step.path("during"), where + ".");
                } finally {
                    client.repliesAway(false);
                }
            }
            case "check" -> assertThat(held.get(step.path("held").asText()).isLost() ? "lost" : "live").as(where)
                    .isEqualTo(step.path("expect").asText());
            case "await_loss" -> awaitLoss(step, where);
            case "await" -> check(step, where, running.remove(step.path("async").asText()).join());
            default -> {
                if (step.has("async")) {
                    running.put(step.path("async").asText(), CompletableFuture.supplyAsync(() -> call(client, step)));
                } else {
                    check(step, where, call(client, step));
                }
            }
        }
    }

    private void awaitLoss(JsonNode step, String where) throws InterruptedException {
        LeaseLost loss;
        try {
            loss = held.get(step.path("held").asText()).lost().get(step.path("within_ms").asLong(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new AssertionError(where + ": not lost in time", e);
        } catch (ExecutionException e) {
            throw new AssertionError(where, e);
        }
        assertThat(loss.reason().name().toLowerCase()).as(where).isEqualTo(step.path("reason").asText());
        if (step.has("before")) {
            assertThat(loss.at()).as(where + ": the loss came after the lease's end on the server")
                    .isBefore(ends.get(step.path("before").asText()));
        }
    }

    private void check(JsonNode step, String where, Result result) {
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
        if (step.has("position")) {
            assertThat(result.position()).as(where).hasValue(step.path("position").asInt());
        }
        if (step.has("save_end")) {
            ends.put(step.path("save_end").asText(), result.lease().orElseThrow().expiresAt());
        }
    }

    /** The step's share: {@code limit} alone or {@code mode} shared ask for a shared permit, as on the wire. */
    private static Share share(JsonNode step) {
        if (step.path("mode").asText().equals("exclusive") || !step.has("mode") && !step.has("limit")) {
            return Share.EXCLUSIVE;
        }
        return Share.shared(step.has("limit") ? step.path("limit").asInt() : Share.MAX_LIMIT);
    }

    private Result call(LockClient client, JsonNode step) {
        BlockingLockClient blocking = client.blocking();
        String owner = step.path("owner").asText();
        Duration ttl = Duration.ofSeconds(step.path("ttl").asLong());
        Duration wait = Duration.ofMillis(step.path("wait_ms").asLong());
        try {
            return switch (step.path("call").asText()) {
                case "acquire" -> {
                    Command.Acquire acquire = new Command.Acquire(LockClient.newRequestId(), resource, owner, ttl, wait,
                            share(step), step.has("value") ? Optional.of(step.path("value").asText()) : Optional.empty());
                    sent.put(step.path("sent").asText(), acquire);
                    yield Result.of(client.send(acquire).thenApply(ReplyMessage::reply).join());
                }
                case "cancel" -> Result.of(client.cancel(sent.get(step.path("cancels").asText())).join());
                case "renew" -> Result.of(blocking.renew(resource, owner, ttl, token(step)));
                case "release" -> Result.of(blocking.release(resource, owner, token(step)));
                case "status" -> Result.of(step.has("owner") ? blocking.status(resource, owner) : blocking.status(resource));
                case "try_acquire" -> {
                    Optional<HeldLease> lease = blocking.tryAcquire(resource, owner, ttl, wait);
                    lease.ifPresent(HeldLease::close);
                    yield Result.of(lease.isPresent() ? "acquired" : "not_acquired", lease.map(HeldLease::lease));
                }
                case "hold" -> hold(blocking.tryAcquire(resource, owner, ttl, wait), step);
                default -> throw new IllegalArgumentException("unknown call " + step.path("call").asText());
            };
        } catch (InvalidCommandException e) {
            return new Result("invalid", Optional.empty(), Optional.empty(), Result.fields(e.problem()), OptionalInt.empty());
        }
    }

    private Result hold(Optional<HeldLease> lease, JsonNode step) {
        lease.ifPresent(h -> {
            held.put(step.path("held").asText(), h);
            if (step.has("release_after_ms")) {
                CompletableFuture.delayedExecutor(step.path("release_after_ms").asLong(), TimeUnit.MILLISECONDS)
                        .execute(h::close);
            }
        });
        return Result.of(lease.isPresent() ? "acquired" : "not_acquired", lease.map(HeldLease::lease));
    }

    private OptionalLong token(JsonNode step) {
        if (!step.has("token")) {
            return OptionalLong.empty();
        }
        return OptionalLong.of(step.path("token").asText().equals("wrong")
                ? saved.values().stream().mapToLong(Long::longValue).max().orElse(0) + 1000
                : saved.get(step.path("token").asText()));
    }
}
