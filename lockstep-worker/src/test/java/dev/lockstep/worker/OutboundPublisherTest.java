package dev.lockstep.worker;

import dev.lockstep.engine.InboundHeaders;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lockstep.engine.Inbound;
import dev.lockstep.engine.Outbound;
import dev.lockstep.engine.PartitionDriver;
import dev.lockstep.engine.PartitionMachine;
import dev.lockstep.engine.PartitionPosition;
import dev.lockstep.engine.PartitionState;
import dev.lockstep.engine.Step;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.HandOver;
import dev.lockstep.protocol.TopicNames;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.junit.jupiter.api.Test;

/**
 * The publisher's own rules, on Kafka's MockProducer: a record the broker refuses as too large is
 * written once in its smaller form and the batch goes on; any other failure fails the batch,
 * which the worker retries.
 */
class OutboundPublisherTest {

    private static final Instant T0 = Instant.parse("2026-12-05T10:00:00Z");
    private static final TopicNames TOPICS = MockPublishing.TOPICS;
    private final MockProducer<byte[], byte[]> producer = MockPublishing.producer();
    private final OutboundPublisher publisher = MockPublishing.publisher(producer);
    private final PartitionMachine machine = MockPublishing.machine();

    private Outbound answer(String json) {
        Inbound record = new Inbound(TOPICS.commands(), 0, 0, "job".getBytes(StandardCharsets.UTF_8),
                json.getBytes(StandardCharsets.UTF_8), InboundHeaders.NONE, Optional.of(T0));
        return machine.step(record, PartitionState.empty(PartitionPosition.START)).answer().orElseThrow();
    }

    @Test
    void aReplyTheBrokerRefusesAsTooLargeIsMarkedUndeliverableOnceAndTheBatchGoesOn() {
        Outbound reply = answer("{\"request_id\":\"r1\",\"type\":\"status\",\"resource\":\"job\"}");
        CompletableFuture<Void> acknowledged = publisher.send(List.of(reply));
        assertThat(producer.errorNext(new RecordTooLargeException("too large"))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 2);
        assertThat(producer.completeNext()).as("the mark, in its place").isTrue();
        await().atMost(Duration.ofSeconds(10)).until(acknowledged::isDone);
        assertThat(acknowledged).isCompleted();
        List<ProducerRecord<byte[], byte[]>> sent = producer.history();
        assertThat(sent).hasSize(2);
        assertThat(sent.get(0).topic()).isEqualTo(TOPICS.replies());
        ProducerRecord<byte[], byte[]> mark = sent.get(1);
        assertThat(mark.topic()).isEqualTo(TOPICS.commands());
        assertThat(mark.partition()).isZero();
        assertThat(new String(mark.headers().lastHeader(DeadLetterHeaders.UNDELIVERABLE).value(),
                StandardCharsets.UTF_8)).contains("refused the reply");
        assertThat(new String(mark.headers().lastHeader(DeadLetterHeaders.REPLY_OF).value(), StandardCharsets.UTF_8))
                .isEqualTo(TOPICS.commands() + "-0@0");
    }

    @Test
    void aDeadLetterTheBrokerRefusesIsWrittenInItsSmallestFormOnce() {
        Outbound dead = answer("not json");
        CompletableFuture<Void> acknowledged = publisher.send(List.of(dead));
        assertThat(producer.errorNext(new RecordTooLargeException("too large"))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(() -> producer.history().size() == 2);
        assertThat(producer.completeNext()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(acknowledged::isDone);
        assertThat(acknowledged).isCompleted();
        ProducerRecord<byte[], byte[]> smallest = producer.history().get(1);
        assertThat(smallest.topic()).isEqualTo(TOPICS.deadLetters());
        assertThat(smallest.value()).isEmpty();
        assertThat(new String(smallest.headers().lastHeader(DeadLetterHeaders.ORIGINAL_VALUE_BYTES).value(),
                StandardCharsets.UTF_8)).isEqualTo("8");
        assertThat(smallest.headers().lastHeader(DeadLetterHeaders.ERROR)).isNotNull();
    }

    /** A run of hand-overs goes to the command partition of the record that made it due, in the shape the state machine takes. */
    @Test
    void aRunOfHandOversIsAppendedToTheSourcesPartition() {
        Inbound source = new Inbound(TOPICS.commands(), 2, 57, "job".getBytes(StandardCharsets.UTF_8),
                new byte[0], InboundHeaders.NONE, Optional.of(T0));
        CompletableFuture<Void> acknowledged = publisher.send(List.of(new Outbound.HandOver(source, "job", 1, 2),
                new Outbound.HandOver(source, "job", 2, 2)));
        assertThat(producer.completeNext()).isTrue();
        assertThat(producer.completeNext()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(acknowledged::isDone);
        assertThat(acknowledged).isCompleted();
        assertThat(producer.history()).hasSize(2).allSatisfy(record -> {
            assertThat(record.topic()).isEqualTo(TOPICS.commands());
            assertThat(record.partition()).isEqualTo(2);
            assertThat(record.key()).isEqualTo("job".getBytes(StandardCharsets.UTF_8));
            assertThat(record.value()).isNull();
        });
        assertThat(producer.history()).extracting(record -> HandOver.read(record.key(), record.value(),
                record.headers().lastHeader(HandOver.HEADER).value(), 1)).containsExactly(
                new HandOver.Read.Resource("job", false), new HandOver.Read.Resource("job", true));
        assertThat(new String(producer.history().get(0).headers().lastHeader(HandOver.HEADER).value(),
                StandardCharsets.UTF_8)).isEqualTo(TOPICS.commands() + "-2@57 1/2");
    }

    @Test
    void anyOtherFailureFailsTheBatchForTheWorkerToRetry() {
        Outbound reply = answer("{\"request_id\":\"r1\",\"type\":\"status\",\"resource\":\"job\"}");
        CompletableFuture<Void> acknowledged = publisher.send(List.of(reply));
        assertThat(producer.errorNext(new TimeoutException("no broker"))).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(acknowledged::isDone);
        assertThat(acknowledged).isCompletedExceptionally();
        assertThat(producer.history()).hasSize(1);
    }

    /**
     * The reply to an acquire that waited is published by the record that granted it; when it
     * cannot be delivered, the mark names the acquire, the request ID and the route, and the state
     * machine makes the dead letter of the acquire's grant from it.
     */
    @Test
    void aWaitersUndeliverableReplyIsMarkedNamingTheAcquireNotTheRecordThatGrantedIt() {
        String gone = "lock.replies.gone";
        OutboundPublisher publishing = MockPublishing.publisher(producer,
                name -> name.equals(gone) ? Optional.empty() : Optional.of(new TopicCatalog.Topic(1, 1_048_588)));
        PartitionDriver partition = PartitionDriver.worker(machine, PartitionState.empty(PartitionPosition.START),
                TOPICS.commands(), 0);
        partition.append("job", "{\"request_id\":\"a1\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"A\","
                + "\"ttl_seconds\":30}", T0);
        partition.append("job", "{\"request_id\":\"b1\",\"type\":\"acquire\",\"resource\":\"job\",\"owner\":\"B\","
                + "\"ttl_seconds\":30,\"wait_ms\":60000,\"reply_to\":\"" + gone + "\"}", T0.plusSeconds(1));
        Step release = partition.append("job", "{\"request_id\":\"rel\",\"type\":\"release\",\"resource\":\"job\","
                + "\"owner\":\"A\"}", T0.plusSeconds(2));

        CompletableFuture<Void> acknowledged = publishing.send(List.copyOf(release.deferred()));
        assertThat(producer.completeNext()).isTrue();
        await().atMost(Duration.ofSeconds(10)).until(acknowledged::isDone);
        ProducerRecord<byte[], byte[]> mark = producer.history().get(0);
        assertThat(mark.topic()).isEqualTo(TOPICS.commands());
        assertThat(mark.partition()).isZero();
        assertThat(mark.value()).isEmpty();
        assertThat(text(mark, DeadLetterHeaders.REPLY_OF)).isEqualTo(TOPICS.commands() + "-0@1");
        assertThat(text(mark, DeadLetterHeaders.REPLY_REQUEST)).isEqualTo("b1");
        assertThat(text(mark, "kafka_replyTopic")).isEqualTo(gone);
        assertThat(text(mark, DeadLetterHeaders.UNDELIVERABLE)).contains(gone).contains("does not exist");

        Outbound.DeadLetter dead = (Outbound.DeadLetter) partition.append(mark.key(), mark.value(),
                InboundHeaders.of(mark.headers()), Optional.of(T0.plusSeconds(3))).answer().orElseThrow();
        assertThat(dead.reply().orElseThrow().value()).isEqualTo(release.deferred().get(0).value());
        assertThat(dead.reply().orElseThrow().route().topic()).isEqualTo(gone);
    }

    private static String text(ProducerRecord<byte[], byte[]> record, String header) {
        return new String(record.headers().lastHeader(header).value(), StandardCharsets.UTF_8);
    }
}
