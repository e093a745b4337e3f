package dev.lockstep.it;

import static dev.lockstep.testkit.Commands.acquire;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lockstep.testkit.LockstepExtension;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Utils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * ATK-16: a client floods one partition with commands for one resource. Partitions are applied
 * side by side, so a command on another partition is answered while the flood is still being
 * worked off; and the flood itself is answered in full.
 */
class FloodIT {

    @RegisterExtension
    static final LockstepExtension env = new LockstepExtension();

    private static final int FLOOD = 20_000;

    @Test
    void atk16_floodingOnePartitionNeitherStarvesTheOthersNorLosesCommands() throws Exception {
        env.startWorker();
        int hotPartition;
        try (KafkaProducer<byte[], byte[]> flooder = new KafkaProducer<>(env.kafka().with(Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.LINGER_MS_CONFIG, 5)),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            byte[] hot = "hot".getBytes(StandardCharsets.UTF_8);
            hotPartition = flooder.send(record(hot, acquire("flood-0", "hot", "flooder-0", 30).toString())).get().partition();
            for (int i = 1; i < FLOOD; i++) {
                flooder.send(record(hot, acquire("flood-" + i, "hot", "flooder-" + i % 10, 30).toString()));
            }
            flooder.flush();
        }
        String victim = otherPartitionResource(hotPartition);

        JsonNode reply = env.call(acquire("victim", victim, "bystander", 30));

        int floodAnswered = floodReplies();
        assertThat(reply.path("outcome").asText()).isEqualTo("acquired");
        assertThat(floodAnswered).as("flood commands answered when the bystander was (it did not queue behind them)")
                .isLessThan(FLOOD);
        env.replies().await(r -> new String(r.key(), StandardCharsets.UTF_8).startsWith("flood-"), FLOOD);
        assertThat(floodReplies()).as("every flood command answered").isEqualTo(FLOOD);
        assertThat(env.deadLetters().all()).isEmpty();
    }

    private static int floodReplies() {
        return env.replies().matching(r -> new String(r.key(), StandardCharsets.UTF_8).startsWith("flood-")).size();
    }

    private static ProducerRecord<byte[], byte[]> record(byte[] key, String value) {
        return new ProducerRecord<>(env.topics().commands(), key, value.getBytes(StandardCharsets.UTF_8));
    }

    /** A resource whose records land on another partition than the flood's (the default partitioner). */
    private static String otherPartitionResource(int hotPartition) {
        for (int i = 0; ; i++) {
            String candidate = "calm-" + i;
            int partition = Utils.toPositive(Utils.murmur2(candidate.getBytes(StandardCharsets.UTF_8)))
                    % LockstepExtension.PARTITIONS;
            if (partition != hotPartition) {
                return candidate;
            }
        }
    }
}
