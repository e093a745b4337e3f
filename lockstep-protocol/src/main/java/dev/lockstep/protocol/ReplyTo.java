package dev.lockstep.protocol;

/** What a command's {@code reply_to} field says about where its reply should go. */
public sealed interface ReplyTo {

    /** No {@code reply_to}: the configured default reply topic. */
    record Default() implements ReplyTo {
    }

    record Named(String topic) implements ReplyTo {
    }

    /** Present but unusable (not a string, or given twice): no route can be established from it. */
    record Malformed(String reason) implements ReplyTo {
    }
}
