package dev.lockstep.worker;

import dev.lockstep.protocol.HandOver;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** The one shape of a hand-over record, for the publisher (at once) and the ticker (again, when one was lost). */
final class HandOvers {

    private HandOvers() {
    }

    /**
     * The {@code index}-th of a run of {@code count} hand-overs of {@code resource}, to its
     * partition of the command topic: keyed by the resource, no value, its header naming the record
     * after which the resource's next waiters were due, and its place in the run. Small (a resource
     * is at most 255 characters), far below any topic's limit.
     */
    static ProducerRecord<byte[], byte[]> record(String commandTopic, int partition, String resource,
            String duePosition, int index, int count) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HandOver.HEADER, HandOver.headerValue(duePosition, index, count));
        return new ProducerRecord<>(commandTopic, partition, null, resource.getBytes(StandardCharsets.UTF_8), null,
                headers);
    }
}
