package dev.lockstep.faults;

import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.replay.Divergence;
import dev.lockstep.replay.ReplayReport;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;

/**
 * What a divergence is diagnosed from, kept when {@code lockstep replay} finds one: the topics and
 * the database go with the run. For each partition a divergence names, {@code partition-N.txt} in
 * the run's directory holds that partition's command log (offset, log-append time, key, headers,
 * value), the lease events published on its events partition, and the replies published to its
 * request IDs, each with where it was read.
 */
final class DivergedPartitions {

    /** {@code ...-N@offset}: a record's or an event's place, as divergences name it. */
    private static final Pattern PLACE = Pattern.compile("-(\\d+)@\\d+$");
    /** The request IDs a command names, its own and the one it cancels. */
    private static final Pattern REQUEST_IDS = Pattern.compile("\"(request_id|cancels)\":\"([^\"]*)\"");

    private DivergedPartitions() {
    }

    /** Writes the partitions {@code replay}'s divergences name to {@code dir}; nothing when there are none. */
    static List<Path> keep(ReplayReport replay, KafkaSettings kafka, TopicNames topics, Path dir) {
        Set<Integer> partitions = new TreeSet<>();
        for (Divergence divergence : replay.divergences()) {
            Matcher place = PLACE.matcher(divergence.source());
            // A command record's place, or an event's (its partition is its command's); a forged
            // reply's place is on a reply topic, which says nothing of the command partition.
            boolean commandPartition = divergence.source().startsWith(topics.commands() + "-")
                    || divergence.source().startsWith("events-");
            if (commandPartition && place.find()) {
                partitions.add(Integer.parseInt(place.group(1)));
            }
        }
        List<Path> written = new ArrayList<>();
        try (LogReader reader = new LogReader(kafka)) {
            for (int partition : partitions) {
                written.add(write(reader, topics, partition, dir));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return written;
    }

    private static Path write(LogReader reader, TopicNames topics, int partition, Path dir) throws IOException {
        List<String> lines = new ArrayList<>();
        Set<String> requestIds = new TreeSet<>();
        lines.add("# " + topics.commands() + "-" + partition + ": offset, log-append time, key, headers, value");
        reader.readAll(topics.commands(), Set.of(partition), r -> {
            String value = text(r.value());
            lines.add(r.offset() + " " + Instant.ofEpochMilli(r.timestamp()) + " " + text(r.key()) + " "
                    + headers(r) + " " + value);
            Matcher id = REQUEST_IDS.matcher(value);
            while (id.find()) {
                requestIds.add(id.group(2));
            }
        });
        lines.add("# " + topics.events() + "-" + partition + ": offset, publication time, value");
        reader.readAll(topics.events(), Set.of(partition), r -> lines.add(published(r)));
        lines.add("# " + topics.replies() + ": the replies to this partition's request IDs: partition@offset, "
                + "publication time, key, value");
        reader.readAll(topics.replies(), Set.of(), r -> {
            if (requestIds.contains(text(r.key()))) {
                lines.add(r.partition() + "@" + published(r).replaceFirst(" ", " " + text(r.key()) + " "));
            }
        });
        Path file = dir.resolve("partition-" + partition + ".txt");
        Files.createDirectories(dir);
        Files.write(file, lines);
        return file;
    }

    private static String published(ConsumerRecord<byte[], byte[]> r) {
        return r.offset() + " " + Instant.ofEpochMilli(r.timestamp()) + " " + text(r.value());
    }

    private static String headers(ConsumerRecord<byte[], byte[]> r) {
        List<String> headers = new ArrayList<>();
        for (Header header : r.headers()) {
            headers.add(header.key() + "=" + text(header.value()));
        }
        return "{" + String.join(", ", headers) + "}";
    }

    /** UTF-8 where the bytes are, hex otherwise; {@code -} for none. */
    private static String text(byte[] bytes) {
        if (bytes == null) {
            return "-";
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            return "0x" + HexFormat.of().formatHex(bytes);
        }
    }
}
