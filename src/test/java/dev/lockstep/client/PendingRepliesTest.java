package dev.lockstep.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.protocol.ReplyDecoder;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class PendingRepliesTest {

    private static ReplyMessage reply(String requestId, String outcome) {
        String json = "{\"request_id\":\"" + requestId + "\",\"type\":\"release\",\"resource\":\"r\",\"outcome\":\""
                + outcome + "\"}";
        return ReplyDecoder.decode(json.getBytes(StandardCharsets.UTF_8)).orElseThrow();
    }

    @Test
    void aRetryWhileTheFirstWaitsSharesItsReply() throws Exception {
        PendingReplies pending = new PendingReplies();
        CompletableFuture<ReplyMessage> first = pending.expect("k");
        CompletableFuture<ReplyMessage> retry = pending.expect("k");
        assertThat(retry).isSameAs(first);
        pending.deliver(reply("k", "released"));
        assertThat(retry.get(5, TimeUnit.SECONDS).json()).contains("released");
        assertThat(pending.size()).isZero();
    }

    @Test
    void theNextRequestWithAnAnsweredIdWaitsForItsOwnReplyEvenFromInsideTheFirstsContinuation() throws Exception {
        PendingReplies pending = new PendingReplies();
        CompletableFuture<ReplyMessage> first = pending.expect("k");
        // Continuations run before the listener's own clean-up: the gateway answered HTTP, and
        // the client sent the reused ID again, all before the first future left the map.
        CompletableFuture<CompletableFuture<ReplyMessage>> second = first.thenApply(done -> pending.expect("k"));
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
        CompletableFuture<ReplyMessage> late = pending.expect("late");
        late.completeExceptionally(new LockTimeoutException("late", Duration.ofMillis(1)));
        assertThat(pending.size()).isZero();
        assertThat(pending.expect("late")).isNotDone();
    }
}
