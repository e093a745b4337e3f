package dev.lockstep.engine;

import dev.lockstep.protocol.Limits;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings that change what a command is answered: recorded with each partition's position,
 * so that replaying the log needs nothing else, and so that two workers with different settings
 * cannot decide the same partition differently.
 *
 * <p>Checked when built: a request ID must be remembered for at least {@link #MIN_REQUEST_RETENTION}
 * of log time, longer than any retry a client makes and any batch the worker applies again after
 * a failed acknowledgement.
 *
 * @param limits the longest TTL and the largest record value
 * @param requestRetention how long (log time) a request ID is remembered after it was applied
 * @param replyAllowList the reply topics a command may choose
 * @param defaultReplyTopic where a reply goes when the command names none
 * @param partitions the command topic's partition count when the partition started: it routes by
 *     murmur2(key) mod this until a growth's seal re-routes it ({@link Layout})
 * @param timekeeping how the partition's time passes
 */
public record EngineSettings(Limits limits, Duration requestRetention, TopicAllowList replyAllowList,
        String defaultReplyTopic, int partitions, Timekeeping timekeeping) {

    public static final Duration MIN_REQUEST_RETENTION = Duration.ofMinutes(5);
    public static final Duration DEFAULT_REQUEST_RETENTION = Duration.ofHours(24);

    public EngineSettings {
        Objects.requireNonNull(limits, "limits");
        Objects.requireNonNull(requestRetention, "requestRetention");
        Objects.requireNonNull(replyAllowList, "replyAllowList");
        Objects.requireNonNull(defaultReplyTopic, "defaultReplyTopic");
        Objects.requireNonNull(timekeeping, "timekeeping");
        if (requestRetention.compareTo(MIN_REQUEST_RETENTION) < 0) {
            throw new IllegalArgumentException("the request retention must be at least "
                    + MIN_REQUEST_RETENTION.toSeconds() + " seconds (got " + requestRetention.toSeconds()
                    + "): a retry inside it must be answered, not applied again");
        }
        if (partitions < 1) {
            throw new IllegalArgumentException("the command topic must have at least one partition: " + partitions);
        }
    }

    /** Settings that keep log-append time ({@link Timekeeping.LogAppend}), as recorded before time was anchored. */
    public EngineSettings(Limits limits, Duration requestRetention, TopicAllowList replyAllowList,
            String defaultReplyTopic, int partitions) {
        this(limits, requestRetention, replyAllowList, defaultReplyTopic, partitions, new Timekeeping.LogAppend());
    }

    /** The same rules for a command topic of another partition count (found on the cluster at assignment). */
    public EngineSettings withPartitions(int count) {
        return new EngineSettings(limits, requestRetention, replyAllowList, defaultReplyTopic, count, timekeeping);
    }

    /** The same rules, keeping time as {@code other} says. */
    public EngineSettings withTimekeeping(Timekeeping other) {
        return new EngineSettings(limits, requestRetention, replyAllowList, defaultReplyTopic, partitions, other);
    }

    /**
     * The canonical text stored with a partition: one {@code key=value} per line, in a fixed order,
     * so that equal settings always give equal text.
     */
    public String canonical() {
        StringBuilder text = new StringBuilder();
        fields().forEach((key, value) -> text.append(key).append('=').append(value).append('\n'));
        return text.toString();
    }

    /** Reads {@link #canonical()} text back; a replay uses it to run under the recorded rules. */
    public static EngineSettings parse(String canonical) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : canonical.split("\n")) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                fields.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        try {
            return new EngineSettings(
                    new Limits(Duration.ofSeconds(Long.parseLong(fields.get("max_ttl_seconds"))),
                            Integer.parseInt(fields.get("max_value_bytes"))),
                    Duration.ofSeconds(Long.parseLong(fields.get("request_retention_seconds"))),
                    new TopicAllowList(List.of(fields.get("reply_allow_list").split(","))),
                    fields.get("default_reply_topic"),
                    Integer.parseInt(fields.get("partitions")),
                    timekeeping(fields));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a recorded settings text: " + canonical, e);
        }
    }

    /** A text recorded before time was anchored names no timekeeping: it kept log-append time. */
    private static Timekeeping timekeeping(Map<String, String> fields) {
        String name = fields.getOrDefault("time", "log");
        return switch (name) {
            case "log" -> new Timekeeping.LogAppend();
            case "anchored" -> new Timekeeping.Anchored(Duration.ofMillis(Long.parseLong(fields.get("time_slack_ms"))));
            default -> throw new IllegalArgumentException("unknown timekeeping " + name);
        };
    }

    /**
     * Each setting that differs, as {@code name: recorded X, this worker Y}; empty when equal. The
     * partition count is not one: it is the count a partition started with, and the log's seals
     * change how it routes since (see {@link Layout}), whatever count a worker finds.
     */
    public List<String> differencesFrom(EngineSettings recorded) {
        List<String> differences = new ArrayList<>();
        Map<String, String> theirs = recorded.fields();
        fields().forEach((key, value) -> {
            if (!key.equals("partitions") && !value.equals(theirs.get(key))) {
                differences.add(key + ": recorded " + theirs.get(key) + ", this worker " + value);
            }
        });
        return differences;
    }

    private Map<String, String> fields() {
        Map<String, String> fields = new LinkedHashMap<>();
        fields.put("max_ttl_seconds", Long.toString(limits.maxTtl().toSeconds()));
        fields.put("max_value_bytes", Integer.toString(limits.maxValueBytes()));
        fields.put("request_retention_seconds", Long.toString(requestRetention.toSeconds()));
        fields.put("reply_allow_list", String.join(",", replyAllowList.entries()));
        fields.put("default_reply_topic", defaultReplyTopic);
        fields.put("partitions", Integer.toString(partitions));
        fields.put("time", timekeeping.name());
        if (timekeeping instanceof Timekeeping.Anchored anchored) {
            fields.put("time_slack_ms", Long.toString(anchored.slack().toMillis()));
        }
        return fields;
    }
}
