package dev.lockstep.history;

import dev.lockstep.core.Outcome;
import dev.lockstep.engine.Arbitration;
import dev.lockstep.engine.Outbound;
import dev.lockstep.protocol.EventCodec;
import dev.lockstep.protocol.ReplyDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Checks a recorded {@link History} the way Jepsen checks a lock: every request answered, and
 * answered the same way each time; replies (and, when the run read them, lease events) equal to a
 * sequential execution of the arbiter over the command log; on each resource no two leases
 * overlap and fencing tokens only grow.
 *
 * <pre>{@code
 * HistoryChecker.Result result = HistoryChecker.check(history);
 * result.assertSafe();                 // AssertionError with readable counterexamples
 * }</pre>
 */
public final class HistoryChecker {

    private static final int SHOWN = 15;

    /** What the check found, with the figures a report needs. */
    public record Result(int requestsSent, int logRecords, int replies, int leasesGranted, List<String> violations) {

        public Result {
            violations = List.copyOf(violations);
        }

        public void assertSafe() {
            if (!violations.isEmpty()) {
                throw new AssertionError(violations.size() + " violation(s) in a history of " + requestsSent
                        + " requests, " + logRecords + " command records and " + replies + " replies:\n  "
                        + String.join("\n  ", violations.subList(0, Math.min(SHOWN, violations.size())))
                        + (violations.size() > SHOWN ? "\n  ..." : ""));
            }
        }

        @Override
        public String toString() {
            return requestsSent + " requests sent, " + logRecords + " command records, " + replies + " replies, "
                    + leasesGranted + " leases granted, " + violations.size() + " violations";
        }
    }

    /** One lease of a resource as the replies told it. */
    public record SeenLease(String owner, long fencingToken, Instant from, Instant until) {
    }

    private HistoryChecker() {
    }

    /** The leases of every resource, in order, as the replies of {@code history} told them. */
    public static Map<String, List<SeenLease>> leasesSeen(History history) {
        SequentialModel model = SequentialModel.replay(history.log(), history.settings(), history.starts(),
                Arbitration.RULES, history.events().map(ObservedEvents::commandTopic).orElse("log"));
        Map<String, List<SeenLease>> seen = new TreeMap<>();
        timelines(history, model).forEach((resource, timeline) -> seen.put(resource, timeline.leases()));
        return seen;
    }

    public static Result check(History history) {
        return check(history, Arbitration.RULES);
    }

    static Result check(History history, Arbitration arbitration) {
        SequentialModel model = SequentialModel.replay(history.log(), history.settings(), history.starts(), arbitration,
                history.events().map(ObservedEvents::commandTopic).orElse("log"));
        List<String> violations = new ArrayList<>();
        checkEveryRequestAnswered(history, model, violations);
        checkRepliesAgainstModel(history, model, violations);
        history.events().ifPresent(observed -> checkEventsAgainstModel(observed, model, violations));
        Map<String, LeaseTimeline> timelines = timelines(history, model);
        timelines.values().forEach(t -> violations.addAll(t.violations()));
        int grants = timelines.values().stream().mapToInt(LeaseTimeline::grantCount).sum();
        return new Result(history.sent().size(), history.log().size(), history.replyCount(), grants, violations);
    }

    private static void checkEveryRequestAnswered(History history, SequentialModel model, List<String> violations) {
        Set<String> logged = model.answerableRequestIds();
        for (String requestId : history.sent()) {
            if (!logged.contains(requestId)) {
                violations.add("request " + requestId + " was acknowledged by the broker but is not in the command log");
            }
        }
        for (String requestId : logged) {
            if (history.replies().getOrDefault(requestId, List.of()).isEmpty()) {
                violations.add("request " + requestId + " (first record " + model.firstRecordOf(requestId)
                        .map(LoggedRecord::position).orElse("?") + ") was never answered");
            }
        }
    }

    private static void checkRepliesAgainstModel(History history, SequentialModel model, List<String> violations) {
        history.replies().forEach((requestId, values) -> {
            Set<String> distinct = new LinkedHashSet<>();
            values.forEach(v -> distinct.add(new String(v, StandardCharsets.UTF_8)));
            if (distinct.size() > 1 && model.expectedReplies(requestId).size() <= 1) {
                violations.add("request " + requestId + " was answered " + values.size()
                        + " times with different replies:\n    " + String.join("\n    ", distinct));
            }
            Set<String> expected = model.expectedReplies(requestId);
            for (String actual : distinct) {
                if (expected.isEmpty()) {
                    violations.add("request " + requestId + " was answered, but no record of it could be: " + actual);
                } else if (!expected.contains(actual)) {
                    violations.add("request " + requestId + " (at " + model.firstRecordOf(requestId)
                            .map(LoggedRecord::position).orElse("?") + "): replied\n    " + actual
                            + "\n  where a sequential execution of the log answers\n    "
                            + String.join("\n    or ", expected));
                }
            }
        });
    }

    /**
     * Every event the log makes was published, on its command's partition, keyed by its resource,
     * byte for byte; nothing else was; duplicates (a publication redone) carry the same bytes.
     */
    private static void checkEventsAgainstModel(ObservedEvents observed, SequentialModel model, List<String> violations) {
        Map<String, Outbound.Event> expected = model.events();
        Set<String> seen = new HashSet<>();
        for (ObservedEvents.Published published : observed.published()) {
            String value = new String(published.value(), StandardCharsets.UTF_8);
            String id;
            try {
                id = EventCodec.decode(published.value()).eventId();
            } catch (IllegalArgumentException e) {
                violations.add("an event that is no event on partition " + published.partition() + ": " + value);
                continue;
            }
            Outbound.Event event = expected.get(id);
            if (event == null) {
                violations.add("event " + id + " was published, but the log makes no such event: " + value);
            } else if (!event.entry().value().equals(value)) {
                violations.add("event " + id + " was published as\n    " + value + "\n  where the log makes\n    "
                        + event.entry().value());
            } else if (published.partition() != event.source().partition()
                    || !published.key().equals(event.entry().resource())) {
                violations.add("event " + id + " was published on partition " + published.partition() + " with key "
                        + published.key() + ", not on its command's partition " + event.source().partition()
                        + " with key " + event.entry().resource());
            }
            seen.add(id);
        }
        expected.forEach((id, event) -> {
            if (!seen.contains(id)) {
                violations.add("event " + id + " (of " + event.source().position() + ") was never published: "
                        + event.entry().value());
            }
        });
    }

    private static Map<String, LeaseTimeline> timelines(History history, SequentialModel model) {
        Map<String, LeaseTimeline> timelines = new TreeMap<>();
        for (SequentialModel.Applied applied : model.applied()) {
            String requestId = applied.command().requestId();
            Optional<ReplyDecoder.ReplyMessage> reply = history.replies().getOrDefault(requestId, List.of()).stream()
                    .map(ReplyDecoder::decode)
                    .flatMap(Optional::stream)
                    .filter(r -> r.reply().outcome() != Outcome.INVALID)
                    .findFirst();
            reply.ifPresent(r -> timelines.computeIfAbsent(applied.command().resource(), LeaseTimeline::new)
                    .observe(applied, r.reply()));
        }
        return timelines;
    }
}
