package dev.lockstep.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.DeadLetterHeaders;
import dev.lockstep.protocol.ReplyEncoder;
import java.io.PrintWriter;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

@Command(name = "dlq", mixinStandardHelpOptions = true,
        description = {"Show the dead letters: why each command could not be answered (lockstep-error), where it came "
                + "from (lockstep-source), its key, its value as text when it is text (escaped, shortened), its headers.",
            "With --replay PARTITION@OFFSET --yes, publish one again to the command topic, as it was, once its cause "
                + "is fixed: answered once, as long as the worker remembers its request ID (--request-retention); "
                + "an older one is refused unless --as-new gives it a new request ID."})
final class DlqCommand implements Callable<Integer> {

    /** How dead letters are written. */
    enum Format { TEXT, JSON }

    @Mixin
    KafkaOptions kafka;

    @Option(names = "--since", paramLabel = "TIME", description = "Only dead letters from this time on (ISO-8601).")
    Instant since;

    @Option(names = "--follow", description = "Keep showing new dead letters until Ctrl-C.")
    boolean follow;

    @Option(names = "--format", defaultValue = "text", description = "text or json (one object a line). "
            + "Default: ${DEFAULT-VALUE}.")
    Format format;

    @Option(names = "--max-chars", paramLabel = "N", defaultValue = "200",
            description = "Show at most N characters of a value. Default: ${DEFAULT-VALUE}.")
    int maxChars;

    @Option(names = "--replay", paramLabel = "PARTITION@OFFSET", description = "The dead letter to publish again "
            + "(an OFFSET alone means partition 0).")
    String replay;

    @Option(names = "--yes", description = "With --replay: publish it (without, only show what would be published).")
    boolean yes;

    @Option(names = "--as-new", description = "With --replay: publish the command with a new request ID, as a new "
            + "request (needed for one older than the request retention, which the worker would apply again).")
    boolean asNew;

    @Option(names = "--request-retention", paramLabel = "SECONDS", defaultValue = "86400",
            description = "The worker's --request-retention (the same setting, from LOCKSTEP_REQUEST_RETENTION or "
                    + "the config file): a dead letter whose command is older is not replayed as it was. "
                    + "Default: ${DEFAULT-VALUE}.")
    long requestRetentionSeconds;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws InterruptedException, ExecutionException {
        Logging.quietKafka();
        KafkaReach.require(kafka.settings());
        PrintWriter out = spec.commandLine().getOut();
        String topic = kafka.topics().deadLetters();
        try (LogReader reader = new LogReader(kafka.settings())) {
            if (replay != null) {
                return replay(reader, topic, out);
            }
            Map<TopicPartition, Long> from = new HashMap<>();
            long shown = 0;
            for (int p = 0; p < reader.partitionCount(topic); p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                LogReader.Bounds bounds = reader.bounds(tp);
                from.put(tp, since == null ? bounds.start() : reader.offsetAt(tp, since).orElse(bounds.end()));
                if (!follow) {
                    reader.read(tp, new LogReader.Bounds(from.get(tp), bounds.end()), r -> show(r, out));
                    shown += bounds.end() - from.get(tp);
                }
            }
            if (!follow && shown == 0) {
                // Said where a person reads it; the listing itself stays empty for tools.
                spec.commandLine().getErr().println("lockstep: no dead letters in " + topic
                        + (since == null ? "" : " since " + since));
            }
            if (follow) {
                CountDownLatch stop = new CountDownLatch(1);
                Signals.onTerminate(stop::countDown);
                reader.follow(from, r -> show(r, out), () -> stop.getCount() > 0, Duration.ofMillis(500));
            }
        }
        out.flush();
        return ExitCodes.OK;
    }

    private int replay(LogReader reader, String topic, PrintWriter out) throws InterruptedException, ExecutionException {
        int at = replay.indexOf('@');
        TopicPartition tp;
        long offset;
        try {
            tp = new TopicPartition(topic, at < 0 ? 0 : Integer.parseInt(replay.substring(0, at)));
            offset = Long.parseLong(replay.substring(at + 1));
        } catch (NumberFormatException e) {
            spec.commandLine().getErr().println("lockstep: --replay takes PARTITION@OFFSET or OFFSET, not '" + replay + "'");
            return ExitCodes.USAGE;
        }
        Optional<ConsumerRecord<byte[], byte[]>> found = reader.recordAt(tp, offset);
        if (found.isEmpty()) {
            spec.commandLine().getErr().println("lockstep: " + tp + " has no record at offset " + offset);
            return ExitCodes.ERROR;
        }
        ConsumerRecord<byte[], byte[]> dead = found.get();
        show(dead, out);
        DeadLetterReplay.Plan plan = new DeadLetterReplay(reader, kafka.topics().commands(),
                Duration.ofSeconds(requestRetentionSeconds), Clock.systemUTC()).plan(dead, asNew);
        if (plan instanceof DeadLetterReplay.Plan.Refuse refused) {
            spec.commandLine().getErr().println("lockstep: not published: " + refused.reason());
            spec.commandLine().getErr().flush();
            return ExitCodes.ERROR;
        }
        DeadLetterReplay.Plan.Publish publish = (DeadLetterReplay.Plan.Publish) plan;
        String as = publish.newRequestId().map(id -> " as the new request " + id).orElse("");
        if (!yes) {
            out.println("not published: add --yes to publish it to " + kafka.topics().commands() + as);
            out.flush();
            return ExitCodes.USAGE;
        }
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(kafka.settings().with(Map.of(),
                Map.of(ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)),
                new ByteArraySerializer(), new ByteArraySerializer())) {
            RecordMetadata sent = producer.send(publish.record()).get();
            out.println("published to " + sent.topic() + "-" + sent.partition() + "@" + sent.offset() + as);
        }
        out.flush();
        return ExitCodes.OK;
    }

    private void show(ConsumerRecord<byte[], byte[]> record, PrintWriter out) {
        String position = record.topic() + "-" + record.partition() + "@" + record.offset();
        String time = ReplyEncoder.formatTime(Instant.ofEpochMilli(record.timestamp()));
        Optional<String> reason = header(record, DeadLetterHeaders.ERROR);
        Optional<String> source = header(record, DeadLetterHeaders.SOURCE);
        Optional<String> key = text(record.key());
        Optional<String> value = text(record.value());
        if (format == Format.JSON) {
            ObjectNode json = new ObjectMapper().createObjectNode();
            json.put("position", position).put("timestamp", time);
            json.put("reason", reason.orElse(null)).put("source", source.orElse(null)).put("key", key.orElse(null));
            json.put("value", value.map(this::shortened).orElse(null));
            json.put("value_bytes", record.value() == null ? 0 : record.value().length);
            ObjectNode headers = json.putObject("headers");
            for (Header header : record.headers()) {
                headers.put(header.key(), text(header.value()).map(this::shortened).orElse("<binary>"));
            }
            out.println(json);
        } else {
            out.println(position + "  " + time + "  " + reason.orElse("(no lockstep-error header)"));
            out.println("  source: " + source.orElse("-") + "   key: " + key.map(k -> quoted(shortened(k)))
                    .orElse(record.key() == null ? "(none)" : "<" + record.key().length + " bytes, not text>"));
            out.println("  value:  " + value.map(v -> quoted(shortened(v))).orElse(record.value() == null ? "(none)"
                    : "<" + record.value().length + " bytes, not text>"));
            for (Header header : record.headers()) {
                if (!header.key().equals(DeadLetterHeaders.ERROR) && !header.key().equals(DeadLetterHeaders.SOURCE)) {
                    out.println("  header " + header.key() + ": " + text(header.value()).map(h -> quoted(shortened(h)))
                            .orElse("<binary>"));
                }
            }
        }
        out.flush();
    }

    private static Optional<String> header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? Optional.empty() : text(header.value());
    }

    /** The bytes as text when they are strict UTF-8. */
    private static Optional<String> text(byte[] bytes) {
        if (bytes == null) {
            return Optional.empty();
        }
        try {
            return Optional.of(StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString());
        } catch (CharacterCodingException e) {
            return Optional.empty();
        }
    }

    private String shortened(String text) {
        return text.length() <= maxChars ? text : text.substring(0, maxChars) + "…(" + (text.length() - maxChars)
                + " more)";
    }

    /** Quoted, with control and invisible characters escaped, so a hostile value cannot rewrite the terminal. */
    private static String quoted(String text) {
        StringBuilder escaped = new StringBuilder("\"");
        text.codePoints().forEach(c -> {
            if (c == '"' || c == '\\') {
                escaped.append('\\').appendCodePoint(c);
            } else if (Character.isISOControl(c) || Character.getType(c) == Character.FORMAT) {
                escaped.append(String.format("\\u%04x", c));
            } else {
                escaped.appendCodePoint(c);
            }
        });
        return escaped.append('"').toString();
    }
}
