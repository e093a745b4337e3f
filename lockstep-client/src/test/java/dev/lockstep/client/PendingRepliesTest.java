package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lockstep.core.Command;
import dev.lockstep.protocol.CommandEncoder;
import dev.lockstep.protocol.ReplyDecoder;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PendingRepliesTest {

    private static final Command RELEASE = new Command.Release("k", "r", "o", OptionalLong.empty());

    private static ReplyMessage reply(String requestId, String resource, String outcome) {
        String json = "{\"request_id\":\"" + requestId + "\",\"type\":\"release\",\"resource\":\"" + resource
                + "\",\"outcome\":\"" + outcome + "\"}";
        return ReplyDecoder.decode(json.getBytes(StandardCharsets.UTF_8)).orElseThrow();
    }

    private static ReplyMessage reply(String requestId, String outcome) {
        return reply(requestId, "r", outcome);
    }

    private static CompletableFuture<ReplyMessage> expect(PendingReplies pending, Command command) {
        return pending.expect(command.requestId(), Expected.of(command), CommandEncoder.encode(command, Optional.empty()));
    }

    @Test
    void aRetryWhileTheFirstWaitsSharesItsReply() throws Exception {
        PendingReplies pending = new PendingReplies();
        CompletableFuture<ReplyMessage> first = expect(pending, RELEASE);
        CompletableFuture<ReplyMessage> retry = expect(pending, RELEASE);
        assertThat(retry).isSameAs(first);
        pending.deliver(reply("k", "released"));
        assertThat(retry.get(5, TimeUnit.SECONDS).json()).contains("released");
        assertThat(pending.size()).isZero();
    }

    @Test
    void anotherCommandWithTheIdOfOneThatWaitsFailsAtOnceAndTheFirstKeepsItsOwnReply() throws Exception {
        PendingReplies pending = new PendingReplies();
        CompletableFuture<ReplyMessage> first = expect(pending, RELEASE);
        Command other = new Command.Release("k", "r", "another-owner", OptionalLong.empty());
        assertThatThrownBy(() -> expect(pending, other)).isInstanceOf(RequestIdInUseException.class)
                .hasMessageContaining("k");
        pending.deliver(reply("k", "released"));
        assertThat(first.get(5, TimeUnit.SECONDS).json()).contains("released");
    }

    @Test
    void aReplyThatAnswersAnotherCommandFailsTheRequestNamingBoth() {
        PendingReplies pending = new PendingReplies();
        CompletableFuture<ReplyMessage> waiting = expect(pending, RELEASE);
        pending.deliver(reply("k", "another-resource", "released"));
        assertThatThrownBy(() -> waiting.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(ReplyMismatchException.class)
                .hasMessageContaining("resource another-resource").hasMessageContaining("release of r by o");
        assertThat(pending.size()).isZero();
    }

    @Test
    void theNextRequestWithAnAnsweredIdWaitsForItsOwnReplyEvenFromInsideTheFirstsContinuation() throws Exception {
        PendingReplies pending = new PendingReplies();
        CompletableFuture<ReplyMessage> first = expect(pending, RELEASE);
        // Continuations run before the listener's own clean-up: the gateway answered HTTP, and
        // the client sent the reused ID again, all before the first future left the map.
        CompletableFuture<CompletableFuture<ReplyMessage>> second = first.thenApply(done -> expect(pending, RELEASE));
        pending.deliver(reply("k", "released"));
        CompletableFuture<ReplyMessage> next = second.get(5, TimeUnit.SECONDS);
        assertThat(next).isNotSameAs(first).isNotDone();
        pending.deliver(reply("k", "invalid"));
        assertThat(next.get(5, TimeUnit.SECONDS).json()).contains("invalid");
    }

    @Test
    void aReplyNobodyWaitsForIsDroppedAndATimedOutRequestLeaves() {
        PendingReplies pending = new PendingReplies();
        pending.deliver(reply("nobody", "released"));
        Command late = new Command.Status("late", "r");
        CompletableFuture<ReplyMessage> waiting = expect(pending, late);
        waiting.completeExceptionally(new LockTimeoutException("late", Duration.ofMillis(1)));
        assertThat(pending.size()).isZero();
        assertThat(expect(pending, late)).isNotDone();
    }
}
