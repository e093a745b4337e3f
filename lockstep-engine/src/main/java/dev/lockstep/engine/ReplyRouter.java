package dev.lockstep.engine;

import dev.lockstep.protocol.ReplyTo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Decides where a reply goes. Spring Kafka's request-reply headers come first
 * ({@code kafka_replyTopic}, {@code kafka_replyPartition}), then the command's {@code reply_to},
 * then the default reply topic. Whatever is chosen must be on the allow-list.
 *
 * <p>Pure: whether the topic and partition exist is the cluster's state, not the log's, so it is
 * checked when the reply is delivered; it may change where a reply goes, never what it says.
 */
public final class ReplyRouter {

    public static final String REPLY_TOPIC_HEADER = "kafka_replyTopic";
    public static final String REPLY_PARTITION_HEADER = "kafka_replyPartition";
    public static final String CORRELATION_HEADER = "kafka_correlationId";

    private final String defaultTopic;
    private final TopicAllowList allowList;
    /** Where almost every reply goes, decided once. */
    private final Routing toDefault;

    public ReplyRouter(String defaultTopic, TopicAllowList allowList) {
        this.defaultTopic = defaultTopic;
        this.allowList = allowList;
        this.toDefault = allowList.allows(defaultTopic)
                ? new Routing.Routed(new ReplyRoute(defaultTopic, OptionalInt.empty()))
                : refused(defaultTopic);
    }

    public Routing route(InboundHeaders headers, ReplyTo replyTo) {
        if (!headers.has(REPLY_TOPIC_HEADER) && replyTo instanceof ReplyTo.Default && !headers.has(REPLY_PARTITION_HEADER)) {
            return toDefault;
        }
        Optional<byte[]> topicHeader = headers.lastValue(REPLY_TOPIC_HEADER);
        String topic;
        if (topicHeader.isPresent()) {
            topic = new String(topicHeader.get(), StandardCharsets.UTF_8);
        } else if (replyTo instanceof ReplyTo.Named named) {
            topic = named.topic();
        } else if (replyTo instanceof ReplyTo.Malformed malformed) {
            return new Routing.Refused(malformed.reason());
        } else {
            topic = defaultTopic;
        }
        if (!allowList.allows(topic)) {
            return refused(topic);
        }
        if (!headers.has(REPLY_PARTITION_HEADER)) {
            return new Routing.Routed(new ReplyRoute(topic, OptionalInt.empty()));
        }
        byte[] bytes = headers.lastValue(REPLY_PARTITION_HEADER).orElse(null);
        if (bytes == null || bytes.length != Integer.BYTES) {
            return new Routing.Refused(REPLY_PARTITION_HEADER + " must be a 4-byte big-endian integer");
        }
        int partition = ByteBuffer.wrap(bytes).getInt();
        if (partition < 0) {
            return new Routing.Refused(REPLY_PARTITION_HEADER + " " + partition + " is negative");
        }
        return new Routing.Routed(new ReplyRoute(topic, OptionalInt.of(partition)));
    }

    private Routing refused(String topic) {
        return new Routing.Refused("reply topic '" + printable(topic) + "' is not on the allow-list "
                + allowList.entries());
    }

    private static String printable(String text) {
        String shortened = text.length() > 100 ? text.substring(0, 100) + "..." : text;
        return shortened.replaceAll("\\p{Cntrl}", "?");
    }
}
