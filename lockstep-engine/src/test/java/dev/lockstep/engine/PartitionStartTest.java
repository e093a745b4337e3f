package dev.lockstep.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.Limits;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where an assigned partition starts, for every way the database and the log can disagree. */
class PartitionStartTest {

    private static final Instant T0 = Instant.parse("2026-12-03T10:00:00Z");
    private static final EngineSettings SETTINGS = new EngineSettings(Limits.defaults(), Duration.ofHours(24),
            new TopicAllowList(TopicAllowList.DEFAULT), "lock.replies", 12);

    private static Optional<StoredPartition> stored(String topicId, long next, long base, EngineSettings settings) {
        return Optional.of(new StoredPartition(Optional.ofNullable(topicId),
                PartitionPosition.fresh(next, T0, base), Optional.ofNullable(settings)));
    }

    private static PartitionStart decide(Optional<StoredPartition> stored, long logStart, long logEnd) {
        return PartitionStart.decide(stored, "id-1", logStart, logEnd, SETTINGS, false, 0);
    }

    @Test
    void aPartitionTheDatabaseNeverSawStartsAtZeroAboveEveryTokenItHas() {
        PartitionStart start = PartitionStart.decide(Optional.empty(), "id-1", 0, 10, SETTINGS, false, 77);
        assertThat(start).isInstanceOf(PartitionStart.Begin.class);
        StoredPartition begun = ((PartitionStart.Begin) start).partition();
        assertThat(begun.position().nextOffset()).isZero();
        assertThat(begun.position().tokenAt(0)).isEqualTo(78);
        assertThat(begun.topicId()).contains("id-1");
        assertThat(begun.settings()).contains(SETTINGS);
        assertThat(((PartitionStart.Begin) start).origin()).isEqualTo(EpochOrigin.FIRST_START);
    }

    @Test
    void theDatabasesPositionWinsOverAnyCommittedOffset() {
        assertThat(decide(stored("id-1", 42, 0, SETTINGS), 0, 100)).isEqualTo(new PartitionStart.Resume(42));
        assertThat(decide(stored("id-1", 100, 0, SETTINGS), 0, 100)).isEqualTo(new PartitionStart.Resume(100));
    }

    @Test
    void aDatabaseAheadOfTheLogIsRefusedNamingBothPositions() {
        PartitionStart start = decide(stored("id-1", 150, 0, SETTINGS), 0, 100);
        assertThat(start).isInstanceOf(PartitionStart.Refuse.class);
        assertThat(((PartitionStart.Refuse) start).reason()).contains("150").contains("100").contains("ahead");
    }

    @Test
    void recordsGoneFromTheLogAreSkippedUnderQuarantine() {
        PartitionStart start = decide(stored("id-1", 10, 0, SETTINGS), 40, 100);
        PartitionPosition position = ((PartitionStart.Begin) start).partition().position();
        assertThat(position.nextOffset()).isEqualTo(40);
        assertThat(position.quarantine()).contains(new Quarantine(10, 40, Optional.empty()));
        assertThat(((PartitionStart.Begin) start).reason()).contains("10..39");
        assertThat(((PartitionStart.Begin) start).origin()).isEqualTo(EpochOrigin.RECORDS_LOST);
        assertThat(EpochOrigin.RECORDS_LOST.stateFromLog()).isFalse();
    }

    @Test
    void aRecreatedTopicStartsAtZeroWithTokensAboveTheOldIncarnation() {
        PartitionStart start = PartitionStart.decide(stored("id-0", 500, 20, SETTINGS), "id-1", 0, 3, SETTINGS,
                false, 0);
        StoredPartition begun = ((PartitionStart.Begin) start).partition();
        assertThat(begun.position().nextOffset()).isZero();
        assertThat(begun.position().tokenAt(0)).isEqualTo(521);
        assertThat(begun.position().clock()).isEqualTo(T0);
        assertThat(begun.topicId()).contains("id-1");
        assertThat(((PartitionStart.Begin) start).reason()).contains("re-created");
        assertThat(((PartitionStart.Begin) start).origin()).isEqualTo(EpochOrigin.TOPIC_RECREATED);
    }

    @Test
    void otherSettingsAreRefusedUnlessAcceptedAndThenRecordedFromTheNextOffset() {
        EngineSettings shorter = new EngineSettings(new Limits(Duration.ofSeconds(60), 16384), Duration.ofHours(24),
                SETTINGS.replyAllowList(), SETTINGS.defaultReplyTopic(), 12);
        PartitionStart refused = PartitionStart.decide(stored("id-1", 5, 0, SETTINGS), "id-1", 0, 10, shorter, false, 0);
        assertThat(refused).isInstanceOf(PartitionStart.Refuse.class);
        assertThat(((PartitionStart.Refuse) refused).settingsDiffer()).isTrue();
        assertThat(((PartitionStart.Refuse) refused).reason()).contains("max_ttl_seconds: recorded 86400, this worker 60")
                .contains("--accept-settings-change");
        PartitionStart accepted = PartitionStart.decide(stored("id-1", 5, 0, SETTINGS), "id-1", 0, 10, shorter, true, 0);
        assertThat(((PartitionStart.Begin) accepted).partition().settings()).contains(shorter);
        assertThat(((PartitionStart.Begin) accepted).partition().position().nextOffset()).isEqualTo(5);
        assertThat(((PartitionStart.Begin) accepted).origin()).as("the state goes on").isEqualTo(EpochOrigin.CONTINUED);
    }

    @Test
    void aTopicThatGrewResumesItsPartitionsUnderTheCountTheyStartedWith() {
        PartitionStart start = PartitionStart.decide(stored("id-1", 5, 0, SETTINGS.withPartitions(6)), "id-1", 0, 10,
                SETTINGS.withPartitions(8), false, 0);
        assertThat(start).as("the seals in its log re-route it").isEqualTo(new PartitionStart.Resume(5));
        PartitionStart recreated = PartitionStart.decide(stored("id-0", 5, 0, SETTINGS.withPartitions(6)), "id-1", 0,
                10, SETTINGS.withPartitions(8), false, 0);
        assertThat(((PartitionStart.Begin) recreated).partition().settings()).map(EngineSettings::partitions)
                .as("a new epoch keeps the count it started with").contains(6);
    }

    @Test
    void aPartitionAddedByAGrowthStartsRoutingByTheCountBeforeIt() {
        PartitionStart start = PartitionStart.decide(Optional.empty(), "id-1", 0, 10, SETTINGS.withPartitions(8), false,
                40, 6);
        assertThat(((PartitionStart.Begin) start).partition().settings()).map(EngineSettings::partitions).contains(6);
        assertThat(((PartitionStart.Begin) start).partition().position().tokenBase()).isEqualTo(40);
    }

    @Test
    void aDatabaseFromBeforeTopicIdsAdoptsTheTopicItFindsOrTakesAShorterLogAsANewOne() {
        PartitionStart adopted = decide(stored(null, 5, 0, null), 0, 10);
        assertThat(((PartitionStart.Begin) adopted).partition().position().nextOffset()).isEqualTo(5);
        PartitionStart recreated = decide(stored(null, 50, 3, null), 0, 10);
        assertThat(((PartitionStart.Begin) recreated).partition().position().tokenAt(0)).isEqualTo(54);
    }

    @Test
    void recordedSettingsReadBackEqual() {
        assertThat(EngineSettings.parse(SETTINGS.canonical())).isEqualTo(SETTINGS);
        assertThat(SETTINGS.differencesFrom(SETTINGS)).isEmpty();
    }
}
