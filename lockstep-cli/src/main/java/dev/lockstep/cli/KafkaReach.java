package dev.lockstep.cli;

import dev.lockstep.embedded.KafkaNoise;
import dev.lockstep.kafka.KafkaSettings;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.KafkaException;

/**
 * Asks once, with a short timeout, whether a Kafka cluster answers: a command says "unreachable"
 * in one line after {@link #TIMEOUT}, instead of its clients retrying (and warning) for minutes.
 * The probe's own retries are not logged ({@link KafkaNoise}).
 */
final class KafkaReach {

    public static final Duration TIMEOUT = Duration.ofSeconds(15);

    /** The cluster did not answer within {@link #TIMEOUT}; the message names the options that point at it. */
    public static final class Unreachable extends KafkaException {

        Unreachable(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private KafkaReach() {
    }

    static void require(KafkaSettings kafka) {
        // The timeouts are tuning: a --kafka-config that sets shorter ones is answered sooner.
        try (Admin admin = Admin.create(kafka.with(Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis() * 2 / 3,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) TIMEOUT.toMillis()),
                Map.of(CommonClientConfigs.CLIENT_ID_CONFIG, KafkaNoise.PROBE_CLIENT_ID)))) {
            admin.describeCluster().nodes().get(TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
            String why = cause instanceof TimeoutException || cause.getMessage() == null ? "no broker answered"
                    : cause.getMessage();
            throw new Unreachable("cannot reach Kafka at " + kafka.bootstrapServers() + " (" + why
                    + "); check --bootstrap-servers and --kafka-config, or start `lockstep dev`", cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while asking Kafka at " + kafka.bootstrapServers() + " whether it answers", e);
        }
    }
}
