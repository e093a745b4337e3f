package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.protocol.ReplyTo;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.OptionalInt;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

class ReplyRouterTest {

    private final ReplyRouter router = new ReplyRouter("lock.replies", new TopicAllowList(TopicAllowList.DEFAULT));

    private static InboundHeaders headers(String topic, byte[] partition) {
        RecordHeaders headers = new RecordHeaders();
        if (topic != null) {
            headers.add(ReplyRouter.REPLY_TOPIC_HEADER, topic.getBytes(StandardCharsets.UTF_8));
        }
        if (partition != null) {
            headers.add(ReplyRouter.REPLY_PARTITION_HEADER, partition);
        }
        return InboundHeaders.of(headers);
    }

    private static byte[] int32(int value) {
        return ByteBuffer.allocate(4).putInt(value).array();
    }

    @Test
    void defaultsToTheReplyTopic() {
        assertThat(router.route(InboundHeaders.NONE, new ReplyTo.Default()))
                .isEqualTo(new Routing.Routed(new ReplyRoute("lock.replies", OptionalInt.empty())));
    }

    @Test
    void honoursAnAllowedReplyTo() {
        assertThat(router.route(InboundHeaders.NONE, new ReplyTo.Named("lock.replies.svc")))
                .isEqualTo(new Routing.Routed(new ReplyRoute("lock.replies.svc", OptionalInt.empty())));
    }

    @Test
    void springHeadersComeBeforeReplyTo() {
        assertThat(router.route(headers("lock.replies.svc", int32(1)), new ReplyTo.Named("lock.replies")))
                .isEqualTo(new Routing.Routed(new ReplyRoute("lock.replies.svc", OptionalInt.of(1))));
    }

    @Test
    void refusesTopicsOutsideTheAllowList() {
        for (String topic : List.of("payments", "lock.commands", "lock.replies2", "lock.replies.", "../etc")) {
            assertThat(router.route(InboundHeaders.NONE, new ReplyTo.Named(topic)))
                    .as(topic).isInstanceOf(Routing.Refused.class);
            assertThat(router.route(headers(topic, null), new ReplyTo.Default()))
                    .as(topic).isInstanceOf(Routing.Refused.class);
        }
    }

    @Test
    void refusesMalformedPartitionsButLeavesExistenceToDelivery() {
        // Whether a topic or partition exists is the cluster's state, not the log's: checked when delivering.
        assertThat(router.route(InboundHeaders.NONE, new ReplyTo.Named("lock.replies.gone")))
                .isEqualTo(new Routing.Routed(new ReplyRoute("lock.replies.gone", OptionalInt.empty())));
        assertThat(router.route(headers("lock.replies", int32(99)), new ReplyTo.Default()))
                .isEqualTo(new Routing.Routed(new ReplyRoute("lock.replies", OptionalInt.of(99))));
        assertThat(router.route(headers("lock.replies", int32(-1)), new ReplyTo.Default()))
                .isInstanceOf(Routing.Refused.class);
        assertThat(router.route(headers("lock.replies", new byte[] {1, 2}), new ReplyTo.Default()))
                .isInstanceOf(Routing.Refused.class);
    }

    @Test
    void refusesAMalformedReplyTo() {
        assertThat(router.route(InboundHeaders.NONE, new ReplyTo.Malformed("reply_to is not a string")))
                .isEqualTo(new Routing.Refused("reply_to is not a string"));
    }

    @Test
    void allowListEntriesAreCheckedWhenBuilt() {
        assertThatThrownBy(() -> new TopicAllowList(List.of())).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopicAllowList(List.of("*"))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TopicAllowList(List.of("a b"))).isInstanceOf(IllegalArgumentException.class);
    }
}
