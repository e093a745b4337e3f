package dev.lockstep.examples;

import dev.lockstep.client.HeldLease;
import dev.lockstep.client.LockClient;
import dev.lockstep.client.LockClientSettings;
import dev.lockstep.kafka.KafkaSettings;
import dev.lockstep.protocol.TopicNames;
import java.io.IOException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.stream.IntStream;

/**
 * One of several competing runners of the example batch orchestrator (see docs/examples.md).
 * Each runner loops over the jobs that are not done, takes each job's lock without waiting,
 * announces its fencing token to the job store, runs the job, and records the result with the
 * token. The store refuses a stale token, so a job's result is recorded exactly once however
 * many runners try, and whichever of them stalls.
 *
 * <p>Arguments: bootstrap servers, command topic, reply topic, JDBC URL, runner name, job count,
 * lease TTL in seconds, and optionally the job on which this runner freezes itself (SIGSTOP)
 * after taking the lock, to show what a long pause does.
 */
public final class JobRunner {

    private JobRunner() {
    }

    public static void main(String[] args) throws Exception {
        KafkaSettings kafka = KafkaSettings.of(args[0]);
        TopicNames topics = new TopicNames(args[1], args[2], args[1] + ".dlq", args[1] + ".events");
        String runner = args[4];
        int jobCount = Integer.parseInt(args[5]);
        Duration ttl = Duration.ofSeconds(Long.parseLong(args[6]));
        Optional<String> stallOn = args.length > 7 ? Optional.of(args[7]) : Optional.empty();
        List<String> jobs = IntStream.range(0, jobCount).mapToObj(i -> "job-" + i).toList();
        try (LockClient locks = LockClient.start(LockClientSettings.defaults(kafka).withTopics(topics));
                FencedJobStore store = new FencedJobStore(args[3])) {
            List<String> order = new ArrayList<>(jobs);
            Collections.shuffle(order);
            stallOn.ifPresent(job -> {
                order.remove(job);
                order.add(0, job); // the stalling runner goes for its job first
            });
            while (!order.isEmpty()) {
                for (String job : List.copyOf(order)) {
                    if (store.isDone(job)) {
                        order.remove(job);
                        continue;
                    }
                    Optional<HeldLease> lease = locks.blocking().tryAcquire("example:" + job, runner, ttl, Duration.ZERO);
                    if (lease.isPresent()) {
                        try (HeldLease held = lease.get()) {
                            runJob(store, job, runner, held, stallOn.filter(job::equals).isPresent());
                        }
                    }
                }
                Thread.sleep(20);
            }
        }
        System.out.println("DONE " + runner);
    }

    private static void runJob(FencedJobStore store, String job, String runner, HeldLease lease, boolean stall)
            throws SQLException, IOException, InterruptedException {
        if (store.isDone(job)) {
            return;
        }
        lease.lost().thenAccept(loss -> System.out.println("LOST " + job + " " + loss.reason() + " " + loss.fencingToken()));
        store.begin(job, lease.fencingToken());
        Thread.sleep(10); // the job's work
        if (stall) {
            System.out.println("STALLED " + job + " " + lease.fencingToken());
            System.out.flush();
            // Freeze this whole JVM, as a long GC pause or a suspended VM would; the parent resumes it.
            new ProcessBuilder("kill", "-STOP", Long.toString(ProcessHandle.current().pid())).start().waitFor();
        }
        boolean recorded = store.complete(job, runner, lease.fencingToken());
        System.out.println((recorded ? "COMPLETED " : "REJECTED ") + job + " " + lease.fencingToken());
        System.out.flush();
    }
}
