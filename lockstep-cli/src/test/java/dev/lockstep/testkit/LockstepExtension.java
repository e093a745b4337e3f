package dev.lockstep.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.engine.TopicAllowList;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import dev.lockstep.store.DatabaseSettings;
import dev.lockstep.topics.TopicApplier;
import dev.lockstep.topics.TopicSpecs;
import dev.lockstep.worker.WorkerSettings;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * The one test fixture of the integration suite. The broker and PostgreSQL start once per JVM
 * ({@link Infrastructure}); each test class that registers this extension gets its own topics
 * and its own database, so classes cannot see each other's leases or replies.
 *
 * <pre>{@code
 * @RegisterExtension
 * static final LockstepExtension env = new LockstepExtension();
 * }</pre>
 */
public final class LockstepExtension implements BeforeAllCallback, AfterEachCallback, AfterAllCallback {

    private static final AtomicInteger CLASSES = new AtomicInteger();
    /** Partitions of every test topic. */
    public static final int PARTITIONS = 3;

    private Infrastructure infra;
    private TopicNames topics;
    private String database;
    private KafkaProducer<byte[], byte[]> producer;
    private TopicCollector replies;
    private TopicCollector deadLetters;
    private final List<AutoCloseable> closeAfterClass = new ArrayList<>();

    @Override
    public void beforeAll(ExtensionContext context) throws Exception {
        infra = context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .computeIfAbsent(Infrastructure.class, k -> Infrastructure.start(), Infrastructure.class);
        String suffix = "it" + CLASSES.incrementAndGet() + "x" + ProcessHandle.current().pid();
        topics = new TopicNames("lock.commands." + suffix, "lock.replies." + suffix, "lock.commands.dlq." + suffix,
                "lock.events." + suffix);
        createTopics(kafka(), topics);
        database = "lockstep_" + suffix;
        try (Connection admin = infra.adminConnection(); Statement st = admin.createStatement()) {
            st.execute("CREATE DATABASE " + database); // a generated identifier, never input
        }
        producer = new KafkaProducer<>(kafka().with(Map.of("acks", "all")), new ByteArraySerializer(),
                new ByteArraySerializer());
    }

    /** A test that cut the broker link leaves it healed for the next. */
    @Override
    public void afterEach(ExtensionContext context) {
        infra.brokerLink().heal();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        for (AutoCloseable resource : closeAfterClass) {
            resource.close();
        }
        if (replies != null) {
            replies.close();
        }
        if (deadLetters != null) {
            deadLetters.close();
        }
        // After a failed start (no infrastructure) only what was made is closed, so that the start's
        // own error, which says what to start, is the one reported.
        if (producer != null) {
            producer.close();
        }
        if (database != null) {
            try (Connection admin = infra.adminConnection(); Statement st = admin.createStatement()) {
                st.execute("DROP DATABASE IF EXISTS " + database + " WITH (FORCE)");
            }
        }
    }

    /**
     * Creates topics from the project's own definitions, renamed, with this suite's partition
     * count; on this suite's broker, or another (a broker a test starts and stops itself).
     */
    public static void createTopics(KafkaSettings kafka, TopicNames names) {
        createTopics(kafka, names, PARTITIONS);
    }

    public static void createTopics(KafkaSettings kafka, TopicNames names, int partitions) {
        try (Admin admin = Admin.create(kafka.with(Map.of()))) {
            new TopicApplier(admin).apply(TopicSpecs.renamed(names, partitions, (short) 1));
        }
    }

    public KafkaSettings kafka() {
        return KafkaSettings.of(infra.bootstrapServers());
    }

    /**
     * The link between the broker and the clients given {@link #proxiedKafka()}, which a test cuts
     * and heals; shared by the JVM's classes, healed after each test.
     */
    public BrokerLink brokerLink() {
        return infra.brokerLink();
    }

    /** The broker behind {@link #brokerLink()}: for a client a test cuts off while the worker keeps its link. */
    public KafkaSettings proxiedKafka() {
        return KafkaSettings.of(infra.brokerLink().bootstrapServers());
    }

    public TopicNames topics() {
        return topics;
    }

    public DatabaseSettings database() {
        return DatabaseSettings.of(infra.urlOf(database));
    }

    /** Restarts the database server the suite uses (every class's database is on it); returns once it answers. */
    public void restartDatabase() {
        infra.restartDatabase();
    }

    /** The name of this class's database on the server. */
    public String databaseName() {
        return database;
    }

    public Connection jdbc() throws SQLException {
        return DriverManager.getConnection(database().jdbcUrl());
    }

    /** A connection to the server's maintenance database, for tests that act on the test database itself. */
    public Connection serverAdmin() throws SQLException {
        return infra.adminConnection();
    }

    public WorkerSettings workerSettings() {
        return WorkerSettings.defaults(kafka()).withTopics(topics, new TopicAllowList(TopicAllowList.DEFAULT));
    }

    public RunningWorker startWorker() {
        return startWorker(workerSettings());
    }

    /** Starts a worker that is stopped after the class at the latest. */
    public RunningWorker startWorker(WorkerSettings settings) {
        return startWorker(settings, database());
    }

    /** As {@link #startWorker(WorkerSettings)}, on a database of the test's own. */
    public RunningWorker startWorker(WorkerSettings settings, DatabaseSettings database) {
        RunningWorker worker = RunningWorker.start(settings, database, Clock.systemUTC());
        closeAfterClass.add(0, worker);
        return worker;
    }

    /** Starts the Java client on this suite's broker and topics; it is closed after the class. */
    public LockClient startClient() {
        return startClient(LockClientSettings.defaults(kafka()).withTopics(topics));
    }

    /** Starts the Java client with these settings (on {@link #proxiedKafka()}, say); it is closed after the class. */
    public LockClient startClient(LockClientSettings settings) {
        LockClient client = LockClient.start(settings);
        closeAfterClass.add(client);
        return client;
    }

    /** Publishes a raw record to the command topic, exactly as given. */
    public RecordMetadata send(String key, String value, Header... headers) {
        return send(topics.commands(), key == null ? null : key.getBytes(StandardCharsets.UTF_8),
                value.getBytes(StandardCharsets.UTF_8), null, headers);
    }

    public RecordMetadata send(String topic, byte[] key, byte[] value, Long timestamp, Header... headers) {
        return send(topic, null, key, value, timestamp, headers);
    }

    public RecordMetadata send(String topic, Integer partition, byte[] key, byte[] value, Long timestamp,
            Header... headers) {
        try {
            return producer.send(new ProducerRecord<>(topic, partition, timestamp, key, value, List.of(headers))).get();
        } catch (InterruptedException | ExecutionException e) {
            throw new IllegalStateException("publishing a test command failed", e);
        }
    }

    /** Publishes a command keyed by its resource, as a well-behaved client does. */
    public void send(ObjectNode command) {
        send(command.path("resource").asText(), command.toString());
    }

    /** Publishes the command and returns its reply. */
    public JsonNode call(ObjectNode command) {
        send(command);
        return awaitReply(command.path("request_id").asText());
    }

    public JsonNode awaitReply(String requestId) {
        return Commands.parse(awaitReplies(requestId, 1).get(0).value());
    }

    public List<ConsumerRecord<byte[], byte[]>> awaitReplies(String requestId,
            int count) {
        byte[] key = requestId.getBytes(StandardCharsets.UTF_8);
        return replies().await(r -> Arrays.equals(r.key(), key), count);
    }

    /** Reads another topic from its beginning; the caller closes the collector. */
    public TopicCollector collect(String topic) {
        return TopicCollector.start(kafka(), topic);
    }

    public synchronized TopicCollector replies() {
        if (replies == null) {
            replies = TopicCollector.start(kafka(), topics.replies());
        }
        return replies;
    }

    public synchronized TopicCollector deadLetters() {
        if (deadLetters == null) {
            deadLetters = TopicCollector.start(kafka(), topics.deadLetters());
        }
        return deadLetters;
    }
}
