package dev.lockstep.worker;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.Sha256;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/** Copies of records cut to fit their topic, and what they say of what they left out. */
class RecordFitTest {

    private static final Set<String> KEPT = Set.of("lockstep-error", "kafka_replyTopic");

    private static ProducerRecord<byte[], byte[]> record(int keyBytes, int valueBytes, int otherHeaderBytes) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("kafka_replyTopic", "lock.replies".getBytes(StandardCharsets.UTF_8));
        if (otherHeaderBytes > 0) {
            headers.add("trace", filled(otherHeaderBytes, 't'));
        }
        headers.add("lockstep-error", "too large".getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>("dlq", null, null, filled(keyBytes, 'k'), filled(valueBytes, 'v'), headers);
    }

    private static byte[] filled(int size, char c) {
        byte[] bytes = new byte[size];
        Arrays.fill(bytes, (byte) c);
        return bytes;
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    @Test
    void aRecordThatFitsIsLeftWhole() {
        ProducerRecord<byte[], byte[]> small = record(10, 100, 10);
        assertThat(RecordFit.fit(small, 10_000, KEPT, RecordFit.Order.VALUE_FIRST)).isSameAs(small);
        assertThat(RecordFit.size(small)).as("never less than Kafka counts: 61 bytes of batch, lengths, data")
                .isGreaterThan(61 + 10 + 100 + 10);
    }

    @Test
    void aDeadLetterOverTheLimitKeepsTheStartOfItsValueWithTheOriginalsSizeAndDigest() {
        ProducerRecord<byte[], byte[]> whole = record(10, 50_000, 10);
        ProducerRecord<byte[], byte[]> cut = RecordFit.fit(whole, 20_000, KEPT, RecordFit.Order.VALUE_FIRST);
        assertThat(RecordFit.size(cut)).isLessThanOrEqualTo(20_000).isGreaterThan(19_800);
        assertThat(header(cut, DeadLetterHeaders.ORIGINAL_VALUE_BYTES)).isEqualTo("50000");
        assertThat(header(cut, DeadLetterHeaders.ORIGINAL_VALUE_SHA256))
                .isEqualTo(HexFormat.of().formatHex(Sha256.of(whole.value())));
        assertThat(whole.value()).startsWith(cut.value());
        assertThat(cut.key()).isEqualTo(whole.key());
        assertThat(header(cut, "trace")).as("the record's headers stay while the value gives room").isNotNull();
        assertThat(DeadLetterHeaders.cut(cut.headers())).isTrue();
    }

    @Test
    void anOversizedKeyIsCutOnceTheValueIsGone() {
        ProducerRecord<byte[], byte[]> whole = record(40_000, 100, 0);
        ProducerRecord<byte[], byte[]> cut = RecordFit.fit(whole, 20_000, KEPT, RecordFit.Order.VALUE_FIRST);
        assertThat(RecordFit.size(cut)).isLessThanOrEqualTo(20_000);
        assertThat(header(cut, DeadLetterHeaders.ORIGINAL_KEY_BYTES)).isEqualTo("40000");
        assertThat(header(cut, DeadLetterHeaders.ORIGINAL_KEY_SHA256))
                .isEqualTo(HexFormat.of().formatHex(Sha256.of(whole.key())));
        assertThat(whole.key()).startsWith(cut.key());
    }

    @Test
    void anOversizedHeaderIsDroppedAndTheValueKeptWholeWhenThatIsEnough() {
        ProducerRecord<byte[], byte[]> whole = record(10, 1_000, 40_000);
        ProducerRecord<byte[], byte[]> cut = RecordFit.fit(whole, 20_000, KEPT, RecordFit.Order.VALUE_FIRST);
        assertThat(RecordFit.size(cut)).isLessThanOrEqualTo(20_000);
        assertThat(header(cut, "trace")).isNull();
        assertThat(header(cut, DeadLetterHeaders.DROPPED_HEADERS)).startsWith("1 headers, ").endsWith(": trace");
        assertThat(cut.value()).as("whole again, once the header made room").isEqualTo(whole.value());
        assertThat(header(cut, DeadLetterHeaders.ORIGINAL_VALUE_SHA256)).isNull();
        assertThat(header(cut, "lockstep-error")).isEqualTo("too large");
        assertThat(header(cut, "kafka_replyTopic")).isEqualTo("lock.replies");
    }

    @Test
    void aMarkGivesUpTheHeadersItsReaderDoesNotReadBeforeItsKeyOrValue() {
        ProducerRecord<byte[], byte[]> whole = record(10, 15_000, 10_000);
        ProducerRecord<byte[], byte[]> cut = RecordFit.fit(whole, 20_000, KEPT, RecordFit.Order.HEADERS_FIRST);
        assertThat(RecordFit.size(cut)).isLessThanOrEqualTo(20_000);
        assertThat(cut.value()).isEqualTo(whole.value());
        assertThat(cut.key()).isEqualTo(whole.key());
        assertThat(header(cut, "trace")).isNull();
        assertThat(header(cut, "kafka_replyTopic")).isEqualTo("lock.replies");
        assertThat(DeadLetterHeaders.cut(cut.headers())).as("key and value whole: it reads as its record").isFalse();
    }

    @Test
    void theSmallestCopyKeepsOnlyTheKeptHeadersAndWhatWasLeftOut() {
        ProducerRecord<byte[], byte[]> whole = record(1_000, 1_000, 1_000);
        ProducerRecord<byte[], byte[]> least = RecordFit.fit(whole, 0, KEPT, RecordFit.Order.VALUE_FIRST);
        assertThat(least.value()).isEmpty();
        assertThat(least.key()).isEmpty();
        assertThat(header(least, "trace")).isNull();
        assertThat(header(least, DeadLetterHeaders.ORIGINAL_VALUE_BYTES)).isEqualTo("1000");
        assertThat(header(least, DeadLetterHeaders.ORIGINAL_KEY_BYTES)).isEqualTo("1000");
        assertThat(RecordFit.size(least)).isLessThan(1_000);
    }

    /** A dead letter of a mark that was cut already: cut further, it still describes the original record. */
    @Test
    void aCopyOfACutCopyKeepsDescribingTheOriginal() {
        ProducerRecord<byte[], byte[]> original = record(30_000, 10, 0);
        ProducerRecord<byte[], byte[]> mark = RecordFit.fit(original, 25_000, KEPT, RecordFit.Order.HEADERS_FIRST);
        RecordHeaders more = new RecordHeaders(mark.headers().toArray());
        more.add("lockstep-source", filled(100, 's'));
        ProducerRecord<byte[], byte[]> again = RecordFit.fit(new ProducerRecord<>("dlq", null, null, mark.key(),
                mark.value(), more), 20_000, Set.of("lockstep-source"), RecordFit.Order.VALUE_FIRST);
        assertThat(RecordFit.size(again)).isLessThanOrEqualTo(20_000);
        assertThat(header(again, DeadLetterHeaders.ORIGINAL_KEY_BYTES)).isEqualTo("30000");
        assertThat(header(again, DeadLetterHeaders.ORIGINAL_KEY_SHA256))
                .isEqualTo(HexFormat.of().formatHex(Sha256.of(original.key())));
        assertThat(again.headers().headers(DeadLetterHeaders.ORIGINAL_KEY_SHA256)).hasSize(1);
        assertThat(header(again, "lockstep-source")).isNotNull();
    }
}
