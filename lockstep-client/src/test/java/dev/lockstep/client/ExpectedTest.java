package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.core.Command;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Problem;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.Reply;
import dev.lockstep.protocol.ReplyDecoder;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import dev.lockstep.protocol.ReplyEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class ExpectedTest {

    private static final Instant T = Instant.parse("2026-12-05T10:00:00Z");
    private static final Command.Acquire ACQUIRE = new Command.Acquire("id", "r", "alice", Duration.ofSeconds(30));

    private static Lease lease(String resource, String owner, long token) {
        return new Lease(resource, owner, token, T, T.plusSeconds(30));
    }

    /** The reply the worker writes for {@code command} with {@code verdict}, as the client reads it. */
    private static ReplyMessage decided(Command command, Verdict verdict) {
        return ReplyDecoder.decode(ReplyEncoder.encode(new Reply.Decided(command, verdict))).orElseThrow();
    }

    private static ReplyMessage raw(String json) {
        return ReplyDecoder.decode(json.getBytes(StandardCharsets.UTF_8)).orElseThrow();
    }

    @Test
    void everyAnswerTheWorkerCanGiveACommandMatchesIt() {
        Command.Renew renew = new Command.Renew("id", "r", "alice", Duration.ofSeconds(30), OptionalLong.of(7));
        Command.Release release = new Command.Release("id", "r", "alice", OptionalLong.empty());
        Command.Status status = new Command.Status("id", "r");
        List<ReplyMessage> acquireAnswers = List.of(decided(ACQUIRE, new Verdict.Acquired(lease("r", "alice", 7))),
                decided(ACQUIRE, new Verdict.NotAcquired(Duration.ofSeconds(3))),
                decided(ACQUIRE, new Verdict.Invalid(Problem.invalidCommand(List.of()))));
        acquireAnswers.forEach(reply -> assertThat(Expected.of(ACQUIRE).mismatch(reply)).isEmpty());
        List.of(new Verdict.Renewed(lease("r", "alice", 7)), new Verdict.Forbidden(), new Verdict.NotFound())
                .forEach(v -> assertThat(Expected.of(renew).mismatch(decided(renew, v))).isEmpty());
        List.of(new Verdict.Released(), new Verdict.Forbidden(), new Verdict.NotFound())
                .forEach(v -> assertThat(Expected.of(release).mismatch(decided(release, v))).isEmpty());
        // A status shows whoever holds the lock.
        List.of(new Verdict.Locked(lease("r", "bob", 3)), new Verdict.NotFound())
                .forEach(v -> assertThat(Expected.of(status).mismatch(decided(status, v))).isEmpty());
    }

    @Test
    void anOwnerIsComparedAsTheWorkerStoresItStrippedOfSurroundingSpace() {
        Command.Acquire padded = new Command.Acquire("id", "r", "  alice ", Duration.ofSeconds(30));
        assertThat(Expected.of(padded).mismatch(decided(ACQUIRE, new Verdict.Acquired(lease("r", "alice", 7)))))
                .isEmpty();
    }

    @Test
    void aGrantToAnotherOwnerIsNeverTheCallersLock() {
        Command.Acquire bobs = new Command.Acquire("id", "r", "bob", Duration.ofSeconds(30));
        assertThat(Expected.of(ACQUIRE).mismatch(decided(bobs, new Verdict.Acquired(lease("r", "bob", 7)))))
                .hasValueSatisfying(why -> assertThat(why).contains("lease owner bob").contains("acquire of r by alice"));
    }

    @Test
    void aReplyForAnotherResourceOrTypeIsNotTheAnswer() {
        Command.Acquire other = new Command.Acquire("id", "s", "alice", Duration.ofSeconds(30));
        assertThat(Expected.of(ACQUIRE).mismatch(decided(other, new Verdict.Acquired(lease("s", "alice", 7)))))
                .hasValueSatisfying(why -> assertThat(why).contains("resource s").contains("lease of s"));
        Command.Release release = new Command.Release("id", "r", "alice", OptionalLong.empty());
        assertThat(Expected.of(ACQUIRE).mismatch(decided(release, new Verdict.Released())))
                .hasValueSatisfying(why -> assertThat(why).contains("type release").contains("outcome released"));
    }

    @Test
    void anOutcomeTheTypeCannotHaveOrALeaseWithAnotherTokenIsNotTheAnswer() {
        assertThat(Expected.of(ACQUIRE).mismatch(raw("{\"request_id\":\"id\",\"type\":\"acquire\",\"resource\":\"r\","
                + "\"outcome\":\"released\"}"))).hasValueSatisfying(why -> assertThat(why).contains("outcome released"));
        Command.Renew renew = new Command.Renew("id", "r", "alice", Duration.ofSeconds(30), OptionalLong.of(7));
        assertThat(Expected.of(renew).mismatch(decided(renew, new Verdict.Renewed(lease("r", "alice", 8)))))
                .hasValueSatisfying(why -> assertThat(why).contains("lease token 8"));
    }

    @Test
    void onlyAnInvalidReplyMayLeaveTypeAndResourceOut() {
        String invalid = "{\"request_id\":\"id\",\"type\":null,\"resource\":null,\"outcome\":\"invalid\","
                + "\"problem\":{\"type\":\"t\",\"title\":\"x\",\"detail\":\"d\",\"errors\":[]}}";
        assertThat(Expected.of(ACQUIRE).mismatch(raw(invalid))).isEmpty();
        String granted = "{\"request_id\":\"id\",\"type\":null,\"resource\":null,\"outcome\":\"acquired\","
                + "\"acquired\":true,\"lock\":{\"resource\":\"r\",\"owner\":\"alice\",\"fencing_token\":7,"
                + "\"acquired_at\":\"2026-12-05T10:00:00.000Z\",\"expires_at\":\"2026-12-05T10:00:30.000Z\"}}";
        assertThat(Expected.of(ACQUIRE).mismatch(raw(granted)))
                .hasValueSatisfying(why -> assertThat(why).contains("type (none)").contains("resource (none)"));
    }

    @Test
    void aReplyWithATypeNoCommandHasIsNotAReplyAtAll() {
        assertThat(ReplyDecoder.decode(("{\"request_id\":\"id\",\"type\":\"steal\",\"resource\":\"r\","
                + "\"outcome\":\"not_found\"}").getBytes(StandardCharsets.UTF_8))).isEqualTo(Optional.empty());
    }

    /** A caller that asked for the whole resource must never take a shared permit for it, nor the reverse. */
    @Test
    void aGrantOfAnotherShareThanAskedIsNoAnswer() {
        Lease shared = new Lease("r", "alice", 7, T, T.plusSeconds(30), 1, Share.shared(4));
        Lease exclusive = lease("r", "alice", 7);
        Command.Acquire semaphore = new Command.Acquire("id", "r", "alice", Duration.ofSeconds(30), Duration.ZERO,
                Share.shared(4));
        assertThat(Expected.of(ACQUIRE).mismatch(decided(semaphore, new Verdict.Acquired(shared))))
                .hasValueSatisfying(why -> assertThat(why).contains("shared of 4"));
        assertThat(Expected.of(semaphore).mismatch(decided(ACQUIRE, new Verdict.Acquired(exclusive))))
                .hasValueSatisfying(why -> assertThat(why).contains("a lease exclusive"));
        Command.Acquire other = new Command.Acquire("id", "r", "alice", Duration.ofSeconds(30), Duration.ZERO,
                Share.shared(5));
        assertThat(Expected.of(other).mismatch(decided(semaphore, new Verdict.Acquired(shared)))).isPresent();
        assertThat(Expected.of(semaphore).mismatch(decided(semaphore, new Verdict.Acquired(shared)))).isEmpty();
    }

    /** A leader that asked to publish its address must not take a grant publishing another's, or none. */
    @Test
    void aGrantPublishingAnotherValueThanAskedIsNoAnswer() {
        Command.Acquire leader = new Command.Acquire("id", "r", "alice", Duration.ofSeconds(30), Duration.ZERO,
                Share.EXCLUSIVE, Optional.of("10.0.0.7:8080"));
        Lease publishing = new Lease("r", "alice", 7, T, T.plusSeconds(30), 0, Share.EXCLUSIVE,
                Optional.of("10.0.0.7:8080"));
        Lease another = new Lease("r", "alice", 7, T, T.plusSeconds(30), 0, Share.EXCLUSIVE, Optional.of("10.0.0.9:1"));
        assertThat(Expected.of(leader).mismatch(decided(leader, new Verdict.Acquired(publishing)))).isEmpty();
        assertThat(Expected.of(leader).mismatch(decided(leader, new Verdict.Acquired(another))))
                .hasValueSatisfying(why -> assertThat(why).contains("a lease publishing 10.0.0.9:1"));
        assertThat(Expected.of(leader).mismatch(decided(leader, new Verdict.Acquired(lease("r", "alice", 7)))))
                .hasValueSatisfying(why -> assertThat(why).contains("a lease publishing no value"));
        assertThat(Expected.of(ACQUIRE).mismatch(decided(ACQUIRE, new Verdict.Acquired(publishing))))
                .as("a lock's acquire takes no leader's grant").isPresent();
    }
}
