package dev.lockstep.engine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Mode;
import dev.lockstep.core.Share;
import dev.lockstep.protocol.Fingerprint;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * One part of a resource's state carried to its new partition in a growth: its live leases, one
 * of its waiters, or the request IDs applied to it lately. Written as JSON into a carry record
 * ({@link dev.lockstep.protocol.Growth#CARRY}) and read back from it, exactly: times to the
 * nanosecond, so the partition that takes the resource over decides as the one that had it would.
 */
sealed interface Carried {

    /** The source partition's time at the seal: the carried times are re-dated from it at the new partition. */
    Instant at();

    /** The resource's leases. */
    record Leases(List<Lease> leases, Instant at) implements Carried {
        public Leases {
            leases = List.copyOf(leases);
        }
    }

    /** One waiter; its place in its new partition's queue is the offset of the record that carries it. */
    record Queued(Waiter waiter, Instant at) implements Carried {
    }

    /** Request IDs applied to the resource lately, with their replies, so that a retry is answered as it was. */
    record Requests(List<RequestEntry> entries, Instant at) implements Carried {
        public Requests {
            entries = List.copyOf(entries);
        }
    }

    ObjectMapper MAPPER = new ObjectMapper();

    static byte[] json(Carried carried) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("at", carried.at().toString());
        if (carried instanceof Leases leases) {
            ArrayNode array = root.putArray("leases");
            leases.leases().forEach(lease -> {
                ObjectNode node = array.addObject();
                node.put("owner", lease.owner());
                node.put("token", lease.fencingToken());
                node.put("acquired_at", lease.acquiredAt().toString());
                node.put("expires_at", lease.expiresAt().toString());
                node.put("permit", lease.permit());
                share(node, lease.share());
                lease.value().ifPresent(value -> node.put("value", value));
            });
        } else if (carried instanceof Requests requests) {
            ArrayNode array = root.putArray("requests");
            requests.entries().forEach(entry -> {
                ObjectNode node = array.addObject();
                node.put("request_id", entry.requestId());
                node.put("fingerprint", entry.fingerprint().hex());
                node.put("reply", entry.reply().text());
                node.put("applied_at", entry.appliedAt().toString());
            });
        } else {
            Waiter waiter = ((Queued) carried).waiter();
            ObjectNode node = root.putObject("waiter");
            node.put("request_id", waiter.requestId());
            node.put("owner", waiter.owner());
            node.put("ttl_ms", waiter.ttl().toMillis());
            node.put("queued_at", waiter.queuedAt().toString());
            node.put("deadline", waiter.deadline().toString());
            node.put("reply_topic", waiter.route().topic());
            waiter.route().partition().ifPresent(p -> node.put("reply_partition", p));
            waiter.correlationId().ifPresent(id -> node.put("correlation_id", HexFormat.of().formatHex(id)));
            node.put("fingerprint", waiter.fingerprint().hex());
            share(node, waiter.share());
            waiter.value().ifPresent(value -> node.put("value", value));
        }
        try {
            return MAPPER.writeValueAsBytes(root);
        } catch (IOException e) {
            throw new IllegalStateException("a tree of strings and numbers always writes", e);
        }
    }

    /**
     * The part a carry record holds, read for {@code resource}; a waiter placed at {@code offset}.
     * Empty when the JSON is not one the worker writes.
     */
    static Optional<Carried> read(String resource, byte[] json, long offset) {
        try {
            JsonNode root = MAPPER.readTree(json);
            Instant at = Instant.parse(text(root, "at"));
            if (root.has("leases") && root.size() == 2) {
                List<Lease> leases = new ArrayList<>();
                for (JsonNode node : root.get("leases")) {
                    leases.add(new Lease(resource, text(node, "owner"), node.get("token").asLong(),
                            Instant.parse(text(node, "acquired_at")), Instant.parse(text(node, "expires_at")),
                            node.get("permit").asInt(), share(node), Optional.ofNullable(node.path("value").textValue())));
                }
                return leases.isEmpty() ? Optional.empty() : Optional.of(new Leases(leases, at));
            }
            if (root.has("requests") && root.size() == 2) {
                List<RequestEntry> entries = new ArrayList<>();
                for (JsonNode node : root.get("requests")) {
                    entries.add(new RequestEntry(text(node, "request_id"), Fingerprint.ofHex(text(node, "fingerprint")),
                            StoredReply.ofText(text(node, "reply")), offset, Instant.parse(text(node, "applied_at"))));
                }
                return entries.isEmpty() ? Optional.empty() : Optional.of(new Requests(entries, at));
            }
            JsonNode node = root.get("waiter");
            if (node == null || root.size() != 2) {
                return Optional.empty();
            }
            Instant queuedAt = Instant.parse(text(node, "queued_at"));
            ReplyRoute route = new ReplyRoute(text(node, "reply_topic"), node.has("reply_partition")
                    ? OptionalInt.of(node.get("reply_partition").asInt()) : OptionalInt.empty());
            Optional<byte[]> correlation = Optional.ofNullable(node.path("correlation_id").textValue())
                    .map(HexFormat.of()::parseHex);
            return Optional.of(new Queued(new Waiter(resource, text(node, "request_id"), text(node, "owner"),
                    Duration.ofMillis(node.get("ttl_ms").asLong()), offset, queuedAt,
                    Instant.parse(text(node, "deadline")), route, correlation,
                    Fingerprint.ofHex(text(node, "fingerprint")), share(node),
                    Optional.ofNullable(node.path("value").textValue())), at));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.get(field);
        if (value == null || !value.isTextual()) {
            throw new IllegalArgumentException("no text " + field);
        }
        return value.textValue();
    }

    private static void share(ObjectNode node, Share share) {
        node.put("mode", share.mode().wireName());
        node.put("limit", share.limit());
    }

    private static Share share(JsonNode node) {
        return Mode.fromWireName(text(node, "mode")).filter(mode -> mode == Mode.SHARED)
                .map(mode -> Share.shared(node.get("limit").asInt())).orElse(Share.EXCLUSIVE);
    }
}
