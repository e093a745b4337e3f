package dev.lockstep.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.lockstep.client.Leader;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockTimeoutException;

import dev.lockstep.core.Verdict;
import dev.lockstep.kafka.LogReader;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.LeaseEvent;
import dev.lockstep.protocol.ResourcePartition;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import picocli.CommandLine;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

@CommandLine.Command(name = "leader", mixinStandardHelpOptions = true,
        description = {"Who leads GROUP: a JSON line with the leader's owner, term and value, or "
                + "\"vacant\":true (exit 11) when nobody leads.",
            "With --follow: then a line each time the leader, its term or its value changes, read from the events "
                    + "topic, until stopped (SIGTERM, Ctrl-C)."})
final class LeaderCommand implements Callable<Integer> {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration POLL = Duration.ofMillis(200);

    @Parameters(index = "0", paramLabel = "GROUP", description = "The election: a resource, held by its leader.")
    String group;

    @Option(names = "--follow", description = "Keep printing the leader as it changes.")
    boolean follow;

    @Mixin
    ClientOptions client;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        Logging.quietKafka();
        PrintWriter out = spec.commandLine().getOut();
        try (LockClient locks = LockClient.start(client.settings()); LogReader events = new LogReader(client.kafka.settings())) {
            String topic = client.kafka.topics().events();
            TopicPartition partition = new TopicPartition(topic, ResourcePartition.of(group, events.partitionCount(topic)));
            // The events after this offset are read after the status: none between them is missed,
            // and those the status already shows change nothing (the term only grows).
            long from = events.bounds(partition).end();
            Verdict status = locks.blocking().send(new dev.lockstep.core.Command.Status(LockClient.newRequestId(), group, Optional.empty()))
                    .reply();
            AtomicReference<Leader> view = new AtomicReference<>(Leader.of(group, status));
            print(out, view.get());
            if (!follow) {
                return view.get().isVacant() ? ExitCodes.NOT_FOUND : ExitCodes.OK;
            }
            AtomicBoolean running = new AtomicBoolean(true);
            Signals.onTerminate(() -> running.set(false));
            byte[] key = group.getBytes(StandardCharsets.UTF_8);
            events.follow(Map.of(partition, from), record -> {
                if (record.key() != null && Arrays.equals(record.key(), key) && record.value() != null) {
                    LeaseEvent event = EventCodec.decode(record.value());
                    Leader next = view.get().after(event);
                    if (!next.equals(view.get())) {
                        view.set(next);
                        print(out, next);
                    }
                }
            }, running::get, POLL);
            return ExitCodes.OK;
        } catch (LockTimeoutException e) {
            spec.commandLine().getErr().println("lockstep: " + e.getMessage() + " (is a worker running?)");
            return ExitCodes.TIMEOUT;
        }
    }

    private static void print(PrintWriter out, Leader leader) {
        ObjectNode line = JSON.createObjectNode().put("group", leader.group());
        if (leader.isVacant()) {
            line.put("vacant", true);
        } else {
            line.put("leader", leader.leader().get());
        }
        if (leader.term() > 0) {
            line.put("term", leader.term());
        }
        leader.value().ifPresent(value -> line.put("value", value));
        out.println(line);
        out.flush();
    }
}
