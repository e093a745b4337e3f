package dev.lockstep.topics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Properties;
import org.junit.jupiter.api.Test;

class TopicSpecsTest {

    @Test
    void theJarCarriesExactlyTheFilesOfTheTopicsDirectory() {
        assertThat(TopicSpecs.builtIn()).containsExactlyInAnyOrderElementsOf(TopicSpecs.fromDirectory(Path.of("..", "topics")));
        assertThat(TopicSpecs.builtIn()).extracting(TopicSpec::name).containsExactlyElementsOf(TopicSpecs.BUILT_IN);
    }

    @Test
    void theCommandTopicStampsLogAppendTime() {
        TopicSpec commands = TopicSpecs.builtIn().get(0);
        assertThat(commands.name()).isEqualTo("lock.commands");
        assertThat(commands.configs()).containsEntry("message.timestamp.type", "LogAppendTime");
    }

    @Test
    void lowersMinInsyncReplicasWithTheReplicationFactor() {
        TopicSpec single = TopicSpecs.builtIn().get(0).withReplicationFactor((short) 1);
        assertThat(single.replicationFactor()).isEqualTo((short) 1);
        assertThat(single.configs()).containsEntry("min.insync.replicas", "1");
    }

    @Test
    void refusesUnknownKeysAndBadValues() {
        Properties props = new Properties();
        props.setProperty("name", "t");
        props.setProperty("partitions", "0");
        props.setProperty("replication.factor", "1");
        assertThatThrownBy(() -> TopicSpecs.parse("f", props)).hasMessageContaining("partitions must be at least 1");
        props.setProperty("partitions", "2");
        props.setProperty("retention.ms", "5");
        assertThatThrownBy(() -> TopicSpecs.parse("f", props)).hasMessageContaining("unknown key 'retention.ms'");
    }
}
