package dev.lockstep.engine.histories;

import java.util.ArrayList;
import java.util.List;

/**
 * One step of a generated history: a producer's command some whole seconds after the one before
 * ({@code dt}), log time passing, or what becomes of the worker's hand-overs. Plain data, so a
 * failing history can be printed, shrunk and run again; what a step refers to (an earlier command,
 * the right fencing token) is resolved when it runs, from what ran before it.
 */
sealed interface Action {

    String[] OWNERS = {"A", "B", "C", "D"};
    String[] RESOURCES = {"r0", "r1", "r2"};

    /** Simpler variants of this step, simplest first: what the shrinker tries in its place (besides less time before it). */
    List<Action> simpler();

    /** The seconds of log time before it: a command's {@code dt}; none for the others. */
    default int delay() {
        return 0;
    }

    /** The same step {@code seconds} later: a command's; the others as they are. */
    default Action later(int seconds) {
        return this;
    }

    /** A fencing token on a renew or release: none, the owner's live lease's, or another. */
    enum Token {
        NONE, RIGHT, WRONG
    }

    /**
     * @param waitSeconds 0 answers at once
     * @param limit 0 for an exclusive acquire, else a shared one of that limit
     * @param value 0 for none, else the lease publishes {@code v<value>}
     */
    record Acquire(int dt, int owner, int resource, int ttl, int waitSeconds, int limit, int value) implements Action {
        @Override
        public int delay() {
            return dt;
        }

        @Override
        public Action later(int seconds) {
            return new Acquire(dt + seconds, owner, resource, ttl, waitSeconds, limit, value);
        }

        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (value > 0) {
                simpler.add(new Acquire(dt, owner, resource, ttl, waitSeconds, limit, 0));
            }
            if (limit > 0) {
                simpler.add(new Acquire(dt, owner, resource, ttl, waitSeconds, 0, value));
            }
            if (limit > 1) {
                simpler.add(new Acquire(dt, owner, resource, ttl, waitSeconds, limit - 1, value));
            }
            if (waitSeconds > 0) {
                simpler.add(new Acquire(dt, owner, resource, ttl, 0, limit, value));
                simpler.add(new Acquire(dt, owner, resource, ttl, waitSeconds - 1, limit, value));
            }
            if (ttl > 1) {
                simpler.add(new Acquire(dt, owner, resource, ttl - 1, waitSeconds, limit, value));
            }
            simpler.addAll(lower(owner, resource, (o, r) -> new Acquire(dt, o, r, ttl, waitSeconds, limit, value)));
            return simpler;
        }

        @Override
        public String toString() {
            return at(dt) + OWNERS[owner] + " acquires " + RESOURCES[resource] + " for " + ttl + " s"
                    + (waitSeconds > 0 ? ", waiting " + waitSeconds + " s" : "") + (limit > 0 ? ", shared of " + limit : "")
                    + (value > 0 ? ", value v" + value : "");
        }
    }

    record Renew(int dt, int owner, int resource, int ttl, Token token) implements Action {
        @Override
        public int delay() {
            return dt;
        }

        @Override
        public Action later(int seconds) {
            return new Renew(dt + seconds, owner, resource, ttl, token);
        }

        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (token != Token.NONE) {
                simpler.add(new Renew(dt, owner, resource, ttl, Token.NONE));
            }
            if (ttl > 1) {
                simpler.add(new Renew(dt, owner, resource, ttl - 1, token));
            }
            simpler.addAll(lower(owner, resource, (o, r) -> new Renew(dt, o, r, ttl, token)));
            return simpler;
        }

        @Override
        public String toString() {
            return at(dt) + OWNERS[owner] + " renews " + RESOURCES[resource] + " for " + ttl + " s" + tokenText(token);
        }
    }

    record Release(int dt, int owner, int resource, Token token) implements Action {
        @Override
        public int delay() {
            return dt;
        }

        @Override
        public Action later(int seconds) {
            return new Release(dt + seconds, owner, resource, token);
        }

        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (token != Token.NONE) {
                simpler.add(new Release(dt, owner, resource, Token.NONE));
            }
            simpler.addAll(lower(owner, resource, (o, r) -> new Release(dt, o, r, token)));
            return simpler;
        }

        @Override
        public String toString() {
            return at(dt) + OWNERS[owner] + " releases " + RESOURCES[resource] + tokenText(token);
        }
    }

    /**
     * A release that cancels the {@code back}-th latest acquire (1 = the last one), as its owner
     * sends it, or another owner; one that names no acquire sent ({@code back} 0) cancels an unknown request.
     */
    record Cancel(int dt, int back, boolean byOther) implements Action {
        @Override
        public int delay() {
            return dt;
        }

        @Override
        public Action later(int seconds) {
            return new Cancel(dt + seconds, back, byOther);
        }

        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (byOther) {
                simpler.add(new Cancel(dt, back, false));
            }
            if (back > 1) {
                simpler.add(new Cancel(dt, back - 1, byOther));
            }
            return simpler;
        }

        @Override
        public String toString() {
            return at(dt) + (byOther ? "another owner cancels " : "its owner cancels ")
                    + (back == 0 ? "an unknown request" : back == 1 ? "the last acquire" : "the acquire " + back
                            + " back");
        }
    }

    /** @param owner -1 for a status without an owner */
    record Status(int dt, int resource, int owner) implements Action {
        @Override
        public int delay() {
            return dt;
        }

        @Override
        public Action later(int seconds) {
            return new Status(dt + seconds, resource, owner);
        }

        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (owner >= 0) {
                simpler.add(new Status(dt, resource, -1));
            }
            if (resource > 0) {
                simpler.add(new Status(dt, resource - 1, owner));
            }
            return simpler;
        }

        @Override
        public String toString() {
            return at(dt) + "status of " + RESOURCES[resource] + (owner >= 0 ? " for " + OWNERS[owner] : "");
        }
    }

    /** The {@code back}-th latest command sent again, the same request ID and command; or, {@code reused}, another command under its ID. */
    record Retry(int dt, int back, boolean reused) implements Action {
        @Override
        public int delay() {
            return dt;
        }

        @Override
        public Action later(int seconds) {
            return new Retry(dt + seconds, back, reused);
        }

        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (back > 1) {
                simpler.add(new Retry(dt, back - 1, reused));
            }
            return simpler;
        }

        @Override
        public String toString() {
            return at(dt) + (reused ? "another command under the request ID of " : "a retry of ")
                    + (back == 1 ? "the last command" : "the command " + back + " back");
        }
    }

    /** Log time passes {@code seconds} with no command; the ticker's ticks come {@code lagMs} after each end. */
    record Pass(int seconds, int lagMs) implements Action {
        @Override
        public List<Action> simpler() {
            List<Action> simpler = new ArrayList<>();
            if (lagMs > 0) {
                simpler.add(new Pass(seconds, 0));
            }
            if (seconds > 1) {
                simpler.add(new Pass(seconds - 1, lagMs));
            }
            return simpler;
        }

        @Override
        public String toString() {
            return seconds + " s pass" + (lagMs > 0 ? " (ticks " + lagMs + " ms after each end)" : "");
        }
    }

    /** The first {@code count} hand-overs in flight land now. */
    record Deliver(int count) implements Action {
        @Override
        public List<Action> simpler() {
            return count > 1 ? List.of(new Deliver(count - 1)) : List.of();
        }

        @Override
        public String toString() {
            return count + " hand-over" + (count > 1 ? "s" : "") + " in flight land";
        }
    }

    /** The hand-overs in flight are lost (a failed send, a crash). */
    record Lose() implements Action {
        @Override
        public List<Action> simpler() {
            return List.of();
        }

        @Override
        public String toString() {
            return "the hand-overs in flight are lost";
        }
    }

    /**
     * The next {@code count} records are lost before they were applied (a database restored past
     * the log's retention): the partition goes on after them, quarantined.
     */
    record LoseRecords(int count) implements Action {
        @Override
        public List<Action> simpler() {
            return count > 1 ? List.of(new LoseRecords(1)) : List.of();
        }

        @Override
        public String toString() {
            return count + " record" + (count > 1 ? "s" : "") + " lost before they were applied: quarantine";
        }
    }

    @FunctionalInterface
    interface Rebuild {
        Action with(int owner, int resource);
    }

    private static List<Action> lower(int owner, int resource, Rebuild rebuild) {
        List<Action> simpler = new ArrayList<>();
        if (owner > 0) {
            simpler.add(rebuild.with(owner - 1, resource));
        }
        if (resource > 0) {
            simpler.add(rebuild.with(owner, resource - 1));
        }
        return simpler;
    }

    private static String at(int dt) {
        return "+" + dt + " s: ";
    }

    private static String tokenText(Token token) {
        return switch (token) {
            case NONE -> "";
            case RIGHT -> " with its token";
            case WRONG -> " with a wrong token";
        };
    }
}
