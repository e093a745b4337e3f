package dev.lockstep.client;

import dev.lockstep.core.Command;
import dev.lockstep.core.CommandType;
import dev.lockstep.core.Lease;
import dev.lockstep.core.Share;
import dev.lockstep.core.Verdict;
import dev.lockstep.protocol.ReplyDecoder.ReplyMessage;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a reply must say to be the answer to the command a caller sent. A request ID alone is not
 * enough: it is the caller's to choose, so a reply carrying it may answer another command (a reused
 * ID, another caller's {@code Idempotency-Key}, a forged record on the reply topic). A reply is
 * accepted only when it names the command's type and resource, has an outcome that type can have,
 * and, when it carries a lease, that lease is of the resource, of the command's owner and (for a
 * renewal naming one) of its fencing token.
 *
 * <pre>{@code
 * Expected expected = Expected.of(command);
 * expected.mismatch(reply).ifPresent(why -> fail(new ReplyMismatchException(why)));
 * }</pre>
 *
 * @param owner the owner as the worker stores it (stripped of surrounding white space); empty for
 *     a status, or when the caller sent none the worker could read
 * @param share for an acquire, the share it asked for: a lease granted of another (a shared one
 *     to a caller that asked for the whole resource) is no answer to it
 * @param value for an acquire (one with a share), the value it asked its lease to publish; a grant
 *     publishing another is no answer to it
 */
public record Expected(CommandType type, String resource, Optional<String> owner, OptionalLong fencingToken,
        Optional<Share> share, Optional<String> value) {

    public Expected(CommandType type, String resource, Optional<String> owner, OptionalLong fencingToken) {
        this(type, resource, owner, fencingToken, Optional.empty(), Optional.empty());
    }

    public static Expected of(Command command) {
        if (command instanceof Command.Acquire c) {
            return new Expected(c.type(), c.resource(), Optional.of(c.owner().strip()), OptionalLong.empty(),
                    Optional.of(c.share()), c.value());
        } else if (command instanceof Command.Renew c) {
            return new Expected(c.type(), c.resource(), Optional.of(c.owner().strip()), c.fencingToken());
        } else if (command instanceof Command.Release c) {
            return new Expected(c.type(), c.resource(), Optional.of(c.owner().strip()), c.fencingToken());
        }
        return new Expected(command.type(), command.resource(), Optional.empty(), OptionalLong.empty());
    }

    /** Why {@code reply} is not an answer to this command; empty when it is. */
    public Optional<String> mismatch(ReplyMessage reply) {
        List<String> wrong = new ArrayList<>();
        boolean invalid = reply.reply() instanceof Verdict.Invalid;
        // An invalid reply names no type or resource when those were what was invalid.
        if (!reply.type().map(type::equals).orElse(invalid)) {
            wrong.add("type " + reply.type().map(CommandType::wireName).orElse("(none)"));
        }
        if (!reply.resource().map(resource::equals).orElse(invalid)) {
            wrong.add("resource " + reply.resource().orElse("(none)"));
        }
        if (!possible(reply.reply())) {
            wrong.add("outcome " + reply.reply().outcome().wireName());
        }
        lease(reply.reply()).ifPresent(lease -> {
            if (!lease.resource().equals(resource)) {
                wrong.add("lease of " + lease.resource());
            }
            if (type != CommandType.STATUS && !owner.map(lease::isOwnedBy).orElse(false)) {
                wrong.add("lease owner " + lease.owner());
            }
            if (fencingToken.isPresent() && lease.fencingToken() != fencingToken.getAsLong()) {
                wrong.add("lease token " + lease.fencingToken());
            }
            if (share.isPresent() && !share.get().equals(lease.share())) {
                wrong.add("a lease " + describe(lease.share()));
            }
        });
        if (share.isPresent() && reply.reply() instanceof Verdict.Acquired acquired
                && !acquired.lease().value().equals(value)) {
            wrong.add("a lease publishing " + acquired.lease().value().orElse("no value"));
        }
        return wrong.isEmpty() ? Optional.empty()
                : Optional.of("reply to request " + reply.requestId() + " names " + String.join(", ", wrong)
                        + ", but the request was " + this);
    }

    /** The outcomes a command of this type can have. */
    private boolean possible(Verdict verdict) {
        if (verdict instanceof Verdict.Invalid || verdict instanceof Verdict.Moved) {
            return true;
        }
        return switch (type) {
            case ACQUIRE -> verdict instanceof Verdict.Acquired || verdict instanceof Verdict.NotAcquired;
            case RENEW -> verdict instanceof Verdict.Renewed || verdict instanceof Verdict.Forbidden
                    || verdict instanceof Verdict.NotFound;
            case RELEASE -> verdict instanceof Verdict.Released || verdict instanceof Verdict.Forbidden
                    || verdict instanceof Verdict.NotFound;
            case STATUS -> verdict instanceof Verdict.Locked || verdict instanceof Verdict.NotFound;
        };
    }

    private static Optional<Lease> lease(Verdict verdict) {
        if (verdict instanceof Verdict.Acquired acquired) {
            return Optional.of(acquired.lease());
        } else if (verdict instanceof Verdict.Renewed renewed) {
            return Optional.of(renewed.lease());
        } else if (verdict instanceof Verdict.Locked locked) {
            return Optional.of(locked.lease());
        }
        return Optional.empty();
    }

    private static String describe(Share share) {
        return share.exclusive() ? "exclusive" : "shared of " + share.limit();
    }

    @Override
    public String toString() {
        return type.wireName() + " of " + resource + owner.map(o -> " by " + o).orElse("")
                + (fencingToken.isPresent() ? " with token " + fencingToken.getAsLong() : "")
                + share.map(s -> ", " + describe(s)).orElse("")
                + value.map(v -> ", publishing " + v).orElse("");
    }
}
