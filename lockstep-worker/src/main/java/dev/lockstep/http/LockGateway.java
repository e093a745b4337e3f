package dev.lockstep.http;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.Expected;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.ReplyMismatchException;
import dev.lockstep.client.RequestIdInUseException;
import dev.lockstep.client.LockTimeoutException;
import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.CommandDecoder;
import dev.lockstep.protocol.Limits;
import dev.lockstep.protocol.ParsedCommand;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * The seed's HTTP lock API, as a Kafka client like any other: each request becomes one command
 * published through {@link LockClient} and is answered from its reply; it never reads or writes the
 * database. The worker validates, as it does for every producer; the gateway only builds the
 * command from the path (the resource), the method (the type) and the body's fields.
 *
 * <pre>
 * POST   /locks/{resource}        {"owner","ttl_seconds"[,"wait_seconds"]} 200 lock | 409 + Retry-After | 422
 * GET    /locks/{resource}[?owner=O]                                       200 lock | 404
 * DELETE /locks/{resource}        {"owner"[,"fencing_token"]}              204 | 403 | 404
 * POST   /locks/{resource}/renew  {"owner","ttl_seconds"[,"fencing_token"]} 200 lock | 403 | 404
 * </pre>
 *
 * <p>An {@code Idempotency-Key} header is the command's {@code request_id}: a retried request is
 * applied once and answered alike. No reply within the timeout is 504 with the request ID, to retry
 * with. Errors are {@code application/problem+json} (RFC 9457); an invalid command's problem is the
 * one its Kafka reply carries.
 */
public final class LockGateway {

    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String PROBLEM_JSON = "application/problem+json";
    private static final ObjectMapper JSON = new ObjectMapper().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
    /** Reads an acquire (its share and value); any TTL the worker may take passes it, the worker judges the TTL. */
    private static final CommandDecoder SHARES = new CommandDecoder(new Limits(ChronoUnit.FOREVER.getDuration(),
            Limits.DEFAULT_MAX_VALUE_BYTES));
    /** The body fields each command takes; others (a {@code reply_to} above all) are not passed on. */
    private static final Map<CommandType, List<String>> FIELDS = Map.of(
            CommandType.ACQUIRE, List.of("owner", "ttl_seconds", "mode", "limit", "value"),
            CommandType.RENEW, List.of("owner", "ttl_seconds", "fencing_token"),
            CommandType.RELEASE, List.of("owner", "fencing_token"),
            CommandType.STATUS, List.of());

    /** The acquire's wait in the queue, in seconds: the command's {@code wait_ms}. */
    private static final String WAIT_SECONDS = "wait_seconds";
    /** Keys remembered: a day's worth (the worker's default request retention), at most this many. */
    private static final int KEYS_KEPT = 100_000;

    private final LockClient client;
    private final Duration timeout;
    private final IdempotencyKeys keys;

    /** @param timeout how long a request waits for its reply before it is answered 504 */
    public LockGateway(LockClient client, Duration timeout) {
        this.client = client;
        this.timeout = timeout;
        this.keys = new IdempotencyKeys(KEYS_KEPT, Duration.ofHours(24), Clock.systemUTC());
    }

    void addTo(RoutesConfig routes) {
        routes.post("/locks/{resource}", ctx -> handle(ctx, CommandType.ACQUIRE));
        routes.get("/locks/{resource}", ctx -> handle(ctx, CommandType.STATUS));
        routes.delete("/locks/{resource}", ctx -> handle(ctx, CommandType.RELEASE));
        routes.post("/locks/{resource}/renew", ctx -> handle(ctx, CommandType.RENEW));
    }

    private void handle(Context ctx, CommandType type) {
        String requestId = Optional.ofNullable(ctx.header(IDEMPOTENCY_KEY)).orElseGet(LockClient::newRequestId);
        String resource = ctx.pathParam("resource");
        ObjectNode command = JSON.createObjectNode();
        command.put("request_id", requestId).put("type", type.wireName()).put("resource", resource);
        if (type == CommandType.STATUS && ctx.queryParam("owner") != null) {
            command.put("owner", ctx.queryParam("owner")); // where that owner waits in the queue
        }
        if (!FIELDS.get(type).isEmpty() && !ctx.body().isBlank()) {
            JsonNode body;
            try {
                body = JSON.readTree(ctx.body());
            } catch (IOException e) {
                body = null;
            }
            if (body == null || !body.isObject()) {
                problem(ctx, 422, Problem.invalidCommand(List.of(new FieldError("body",
                        "must be a JSON object without repeated fields"))), requestId);
                return;
            }
            for (String field : FIELDS.get(type)) {
                if (body.has(field)) {
                    command.set(field, body.get(field));
                }
            }
            if (type == CommandType.ACQUIRE && body.has(WAIT_SECONDS)) {
                JsonNode wait = body.get(WAIT_SECONDS);
                long max = Limits.MAX_WAIT.toSeconds();
                if (!wait.canConvertToExactIntegral() || !wait.canConvertToLong() || wait.longValue() < 0
                        || wait.longValue() > max) {
                    problem(ctx, 422, Problem.invalidCommand(List.of(new FieldError(WAIT_SECONDS,
                            "must be a JSON integer from 0 to " + max + " when given"))), requestId);
                    return;
                }
                command.put("wait_ms", wait.longValue() * 1_000);
            }
        }
        byte[] value = command.toString().getBytes(StandardCharsets.UTF_8);
        Optional<String> key = Optional.ofNullable(ctx.header(IDEMPOTENCY_KEY));
        IdempotencyKeys.Use use = key.map(k -> keys.begin(k, value)).orElse(IdempotencyKeys.Use.FIRST);
        if (use == IdempotencyKeys.Use.OTHER || use == IdempotencyKeys.Use.OTHER_IN_FLIGHT) {
            keyReused(ctx, requestId, use == IdempotencyKeys.Use.OTHER_IN_FLIGHT);
            return;
        }
        if (use == IdempotencyKeys.Use.CANCELLED) {
            wasCancelled(ctx, requestId);
            return;
        }
        Optional<Command.Acquire> asked = acquire(resource, value);
        Expected expected = new Expected(type, resource, owner(command), token(command),
                asked.map(Command.Acquire::share), asked.flatMap(Command.Acquire::value));
        // A request that waits in the queue is held that much longer before it is answered 504.
        Duration waits = Duration.ofMillis(command.path("wait_ms").asLong(0));
        CompletableFuture<ReplyMessage> reply = client.send(requestId, resource.getBytes(StandardCharsets.UTF_8),
                value, expected, timeout.plus(waits));
        ctx.future(() -> reply.handle((message, error) -> {
            Throwable cause = error instanceof CompletionException ? error.getCause() : error;
            boolean cancellable = cause instanceof LockTimeoutException && type == CommandType.ACQUIRE
                    && expected.owner().isPresent();
            if (cancellable && key.map(keys::timedOut).orElse(true)) {
                // The caller gives up: a lease the acquire is granted later must not block the lock for its TTL.
                // The key is marked cancelled in the same step that ends this request: a retry with it is never
                // sent between the two, to be answered with a lease this cancellation releases.
                return client.cancelAcquire(requestId, resource, expected.owner().get()).handle((published, failed) -> {
                    cancelled(ctx, requestId, failed == null);
                    return null;
                });
            }
            if (cause != null) {
                if (!cancellable) { // else timedOut ended it: a request with its key was answered, so no cancelling
                    key.ifPresent(keys::end);
                }
                failed(ctx, requestId, cause);
            } else if (key.map(keys::answered).orElse(true)) {
                answer(ctx, type, message);
            } else {
                wasCancelled(ctx, requestId); // a retry in flight when another request with its key was cancelled
            }
            return CompletableFuture.completedFuture(null);
        }).thenCompose(done -> done));
    }

    private static void wasCancelled(Context ctx, String requestId) {
        problem(ctx, 409, new Problem("urn:lockstep:problem:cancelled", "This request was cancelled.",
                "It timed out and was cancelled: whatever it was granted is released. Send it again with a new "
                        + IDEMPOTENCY_KEY + ".", List.of()), requestId);
    }

    private static void cancelled(Context ctx, String requestId, boolean published) {
        problem(ctx, 504, new Problem("urn:lockstep:problem:timeout", "No reply in time.", published
                ? "The acquire was cancelled: if the worker applies it later, the lease it is granted is released "
                        + "right after. Send it again as a new request (a new " + IDEMPOTENCY_KEY + ")."
                : "The acquire may still be applied, and its cancellation could not be published: check the lock "
                        + "with GET before you try again.", List.of()), requestId);
    }

    /** The owner as the worker reads it; empty when it is not text (the worker answers {@code invalid}). */
    private static Optional<String> owner(ObjectNode command) {
        return Optional.ofNullable(command.path("owner").textValue()).map(String::strip);
    }

    /**
     * The acquire, read as the worker reads it: a grant of another share, or publishing another
     * value, is no answer to it. Empty for another command, or one the worker answers {@code invalid}.
     */
    private static Optional<Command.Acquire> acquire(String resource, byte[] value) {
        return SHARES.decode(resource.getBytes(StandardCharsets.UTF_8), value) instanceof ParsedCommand.Valid valid
                && valid.command() instanceof Command.Acquire acquire ? Optional.of(acquire) : Optional.empty();
    }

    private static OptionalLong token(ObjectNode command) {
        JsonNode token = command.path("fencing_token");
        return token.canConvertToExactIntegral() && token.canConvertToLong() ? OptionalLong.of(token.longValue())
                : OptionalLong.empty();
    }

    private static void keyReused(Context ctx, String requestId, boolean inFlight) {
        if (inFlight) {
            problem(ctx, 409, new Problem("urn:lockstep:problem:idempotency-key-in-use",
                    "The Idempotency-Key is in use by another request.",
                    "A request with this key and another method, resource or body waits for its reply. "
                            + "Use a new key for a new request.", List.of()), requestId);
        } else {
            problem(ctx, 422, Problem.invalidCommand(List.of(new FieldError(IDEMPOTENCY_KEY,
                    "was used for another request (method, resource or body); use a new key for a new request"))),
                    requestId);
        }
    }

    private static void answer(Context ctx, CommandType type, ReplyMessage message) {
        Verdict verdict = message.reply();
        String id = message.requestId();
        if (verdict instanceof Verdict.Acquired || verdict instanceof Verdict.Renewed || verdict instanceof Verdict.Locked) {
            ctx.status(200).contentType("application/json").result(message.json());
        } else if (verdict instanceof Verdict.Released) {
            ctx.status(204);
        } else if (verdict instanceof Verdict.NotAcquired notAcquired) {
            long millis = notAcquired.retryAfter().toMillis();
            ctx.header("Retry-After", Long.toString(Math.max(1, (millis + 999) / 1000)));
            String why = notAcquired.reason().map(end -> switch (end) {
                case WAIT_EXPIRED -> "The wait in its queue ended first (wait_expired). ";
                case QUEUE_FULL -> "Its queue is full (queue_full). ";
                case CANCELLED -> "The wait was cancelled (cancelled). ";
            }).orElse("");
            problem(ctx, 409, new Problem("urn:lockstep:problem:held", "The lock is held by another owner.",
                    why + "It can be had in " + millis + " ms at the latest, unless its holder renews it.", List.of()),
                    id);
        } else if (verdict instanceof Verdict.Forbidden) {
            problem(ctx, 403, new Problem("urn:lockstep:problem:forbidden", "Owner mismatch.",
                    "The lock is held by another owner (or with another fencing token).", List.of()), id);
        } else if (verdict instanceof Verdict.NotFound) {
            problem(ctx, 404, new Problem("urn:lockstep:problem:not-found", "Lock not found.",
                    "No live lock on this resource" + (type == CommandType.STATUS ? "." : " (missing or expired)."),
                    List.of()), id);
        } else {
            problem(ctx, 422, ((Verdict.Invalid) verdict).problem(), id);
        }
    }

    private static void failed(Context ctx, String requestId, Throwable error) {
        if (error instanceof RequestIdInUseException) {
            keyReused(ctx, requestId, true);
        } else if (error instanceof ReplyMismatchException) {
            keyReused(ctx, requestId, false);
        } else if (error instanceof LockTimeoutException) {
            problem(ctx, 504, new Problem("urn:lockstep:problem:timeout", "No reply in time.",
                    "The command may still be applied: retry with the header " + IDEMPOTENCY_KEY + ": " + requestId
                            + " to get its outcome, applied once.", List.of()), requestId);
        } else {
            problem(ctx, 503, new Problem("urn:lockstep:problem:unavailable", "The command could not be published.",
                    String.valueOf(error.getMessage()), List.of()), requestId);
        }
    }

    private static void problem(Context ctx, int status, Problem problem, String requestId) {
        ObjectNode body = JSON.createObjectNode();
        body.put("type", problem.type()).put("title", problem.title()).put("status", status)
                .put("detail", problem.detail()).put("request_id", requestId);
        if (!problem.errors().isEmpty()) {
            problem.errors().forEach(error -> body.withArray("errors").addObject()
                    .put("field", error.field()).put("message", error.message()));
        }
        ctx.status(status).contentType(PROBLEM_JSON).result(body.toString());
    }
}
