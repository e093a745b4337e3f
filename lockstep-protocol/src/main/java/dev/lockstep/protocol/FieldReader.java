package dev.lockstep.protocol;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.FieldError;
import dev.lockstep.core.Mode;
import dev.lockstep.core.Share;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;

/** Reads the command's fields one by one, collecting every error instead of stopping at the first. */
final class FieldReader {

    private final Map<String, List<JsonNode>> fields;
    private final List<FieldError> errors = new ArrayList<>();

    FieldReader(Map<String, List<JsonNode>> fields) {
        this.fields = fields;
        fields.forEach((name, nodes) -> {
            if (nodes.size() > 1) {
                errors.add(new FieldError(name, "is given more than once"));
            }
        });
    }

    List<FieldError> errors() {
        return List.copyOf(errors);
    }

    void error(String field, String message) {
        errors.add(new FieldError(field, message));
    }

    Optional<CommandType> type() {
        Optional<JsonNode> node = single("type");
        if (node.isEmpty()) {
            return Optional.empty();
        }
        Optional<CommandType> type = node.filter(JsonNode::isTextual).flatMap(n -> CommandType.fromWireName(n.textValue()));
        if (type.isEmpty()) {
            error("type", "must be one of acquire, renew, release, status");
        }
        return type;
    }

    /** @param trim whether surrounding white space is dropped before the checks (owners are trimmed) */
    Optional<String> text(String field, int maxChars, boolean trim) {
        Optional<JsonNode> node = single(field);
        if (node.isEmpty()) {
            return Optional.empty();
        }
        if (!node.get().isTextual()) {
            error(field, "must be a string");
            return Optional.empty();
        }
        String value = trim ? node.get().textValue().strip() : node.get().textValue();
        Optional<String> problem = Text.checkContent(value, maxChars);
        problem.ifPresent(p -> error(field, p));
        return problem.isPresent() ? Optional.empty() : Optional.of(value);
    }

    Optional<Duration> ttl(Duration max) {
        Optional<JsonNode> node = single("ttl_seconds");
        if (node.isEmpty()) {
            return Optional.empty();
        }
        String bounds = "must be a JSON integer from 1 to " + max.toSeconds();
        if (!node.get().isIntegralNumber() || !node.get().canConvertToLong()) {
            error("ttl_seconds", bounds);
            return Optional.empty();
        }
        long seconds = node.get().longValue();
        if (seconds < 1 || seconds > max.toSeconds()) {
            error("ttl_seconds", bounds);
            return Optional.empty();
        }
        return Optional.of(Duration.ofSeconds(seconds));
    }

    /** {@code wait_ms}: how long an acquire waits in its resource's queue; zero when not given. */
    Duration waitMs() {
        List<JsonNode> nodes = fields.get("wait_ms");
        if (nodes == null || nodes.size() == 1 && nodes.get(0).isNull()) {
            return Duration.ZERO;
        }
        JsonNode node = nodes.get(0);
        long max = Limits.MAX_WAIT.toMillis();
        if (nodes.size() != 1 || !node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 0
                || node.longValue() > max) {
            error("wait_ms", "must be a JSON integer from 0 to " + max + " when given");
            return Duration.ZERO;
        }
        return Duration.ofMillis(node.longValue());
    }

    /**
     * {@code mode} and {@code limit}: the share of the resource an acquire asks for. Neither given
     * is the whole resource, as a lock's acquire; a {@code limit} alone, or {@code mode} shared,
     * one of the resource's shared permits ({@link Share#MAX_LIMIT} of them unless the limit says).
     */
    Share share() {
        Optional<Mode> mode = Optional.empty();
        List<JsonNode> modes = fields.get("mode");
        if (modes != null && modes.size() == 1 && !modes.get(0).isNull()) {
            mode = Optional.of(modes.get(0)).filter(JsonNode::isTextual).flatMap(n -> Mode.fromWireName(n.textValue()));
            if (mode.isEmpty()) {
                error("mode", "must be exclusive or shared when given");
            }
        }
        OptionalInt limit = OptionalInt.empty();
        List<JsonNode> limits = fields.get("limit");
        if (limits != null && limits.size() == 1 && !limits.get(0).isNull()) {
            JsonNode node = limits.get(0);
            if (node.isIntegralNumber() && node.canConvertToInt() && node.intValue() >= 1
                    && node.intValue() <= Share.MAX_LIMIT) {
                limit = OptionalInt.of(node.intValue());
            } else {
                error("limit", "must be a JSON integer from 1 to " + Share.MAX_LIMIT + " when given");
            }
        }
        if (mode.filter(m -> m == Mode.EXCLUSIVE).isPresent() && limit.isPresent()) {
            error("limit", "is given only for a shared acquire: an exclusive holder is its resource's only one");
        }
        return mode.filter(m -> m == Mode.EXCLUSIVE).isPresent() || mode.isEmpty() && limit.isEmpty()
                ? Share.EXCLUSIVE : Share.shared(limit.orElse(Share.MAX_LIMIT));
    }

    OptionalLong fencingToken() {
        List<JsonNode> nodes = fields.get("fencing_token");
        if (nodes == null || nodes.size() != 1) {
            return OptionalLong.empty();
        }
        JsonNode node = nodes.get(0);
        if (!node.isIntegralNumber() || !node.canConvertToLong() || node.longValue() < 1) {
            error("fencing_token", "must be a positive JSON integer when given");
            return OptionalLong.empty();
        }
        return OptionalLong.of(node.longValue());
    }

    /** The field's one value; a missing or null field is reported as required. */
    private Optional<JsonNode> single(String field) {
        List<JsonNode> nodes = fields.get(field);
        if (nodes == null || nodes.size() == 1 && nodes.get(0).isNull()) {
            error(field, "is required");
            return Optional.empty();
        }
        return nodes.size() == 1 ? Optional.of(nodes.get(0)) : Optional.empty();
    }
}
