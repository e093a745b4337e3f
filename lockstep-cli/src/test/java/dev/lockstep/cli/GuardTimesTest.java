package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.client.LockClientSettings;
import dev.lockstep.kafka.KafkaSettings;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GuardTimesTest {

    private static final LockClientSettings DEFAULTS = LockClientSettings.defaults(KafkaSettings.of("127.0.0.1:9092"));

    @Test
    void theGraceIsCutToHalfOfWhatIsLeftOfTheValidityAfterTheSecondRenewalWasDue() {
        // Renewals at 1/3 and 2/3 of the TTL, validity to 0.9: 0.233 x TTL left, half of it the grace.
        GuardTimes short3 = GuardTimes.of(Duration.ofSeconds(10), Duration.ofSeconds(3), DEFAULTS);
        assertThat(short3.grace()).isBetween(Duration.ofMillis(349), Duration.ofMillis(351));
        assertThat(GuardTimes.of(Duration.ofSeconds(10), Duration.ofSeconds(15), DEFAULTS).grace())
                .isBetween(Duration.ofMillis(1_749), Duration.ofMillis(1_751));
        assertThat(GuardTimes.of(Duration.ofSeconds(10), Duration.ofSeconds(100), DEFAULTS).grace())
                .as("as asked, where it fits").isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void aJobStartsWithItsSigtermNoSoonerThanTheNextRenewalIsDue() {
        GuardTimes times = GuardTimes.of(Duration.ofSeconds(10), Duration.ofSeconds(3), DEFAULTS);
        assertThat(times.toStart()).isEqualTo(times.grace().plusSeconds(1));
    }
}
