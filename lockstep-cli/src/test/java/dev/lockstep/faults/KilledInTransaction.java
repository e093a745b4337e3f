package dev.lockstep.faults;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.springframework.kafka.core.DefaultKafkaProducerFactory;
import org.springframework.kafka.core.KafkaTemplate;

/**
 * A producer of commands that stops inside a Kafka transaction, to be killed there (SIGKILL) by
 * {@code OpenTransactionIT}: {@code java} as a plain transactional {@link KafkaProducer},
 * {@code spring} as Spring's {@link KafkaTemplate} with a {@code transactionIdPrefix}. Prints
 * {@code SENT} once its record is in the partition, inside the open transaction; the shipped
 * {@code transaction.timeout.ms} (60 s) is left as users leave it.
 *
 * <p>Arguments: {@code java|spring BOOTSTRAP TOPIC KEY VALUE}.
 */
public final class KilledInTransaction {

    private KilledInTransaction() {
    }

    public static void main(String[] args) throws InterruptedException, ExecutionException {
        String kind = args[0];
        Map<String, Object> config = Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, args[1],
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(args[2], args[3].getBytes(StandardCharsets.UTF_8),
                args[4].getBytes(StandardCharsets.UTF_8));
        switch (kind) {
            case "java" -> {
                Map<String, Object> transactional = new HashMap<>(config);
                transactional.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "killed-" + UUID.randomUUID());
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(transactional);
                producer.initTransactions();
                producer.beginTransaction();
                producer.send(record).get();
                sentThenWait();
            }
            case "spring" -> {
                DefaultKafkaProducerFactory<byte[], byte[]> factory = new DefaultKafkaProducerFactory<>(config);
                factory.setTransactionIdPrefix("killed-" + UUID.randomUUID() + "-");
                new KafkaTemplate<>(factory).executeInTransaction(template -> {
                    try {
                        template.send(record).get();
                        sentThenWait();
                    } catch (InterruptedException | ExecutionException e) {
                        throw new IllegalStateException(e);
                    }
                    return null;
                });
            }
            default -> throw new IllegalArgumentException("java or spring, not " + kind);
        }
    }

    private static void sentThenWait() throws InterruptedException {
        System.out.println("SENT");
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
