package dev.lockstep.bench;

import dev.lockstep.core.Command;
import java.time.Duration;
import java.util.OptionalLong;
import java.util.SplittableRandom;
import java.util.UUID;

/**
 * The benchmark's workload: acquire 50 %, renew 20 %, release 25 %, status 5 %, over a fixed set
 * of resources. Each resource has a usual owner who sends 80 % of its commands; the rest come from
 * any of the other owners, which makes for contention, refusals and takeovers. Pure and seeded.
 */
final class CommandMix {

    static final int OWNERS = 1_000;
    private static final Duration TTL = Duration.ofSeconds(30);

    private final int resources;
    private final SplittableRandom random;

    CommandMix(int resources, long seed) {
        this.resources = resources;
        this.random = new SplittableRandom(seed);
    }

    static String resource(int index) {
        return "res-" + index;
    }

    static String usualOwner(int resource) {
        return "owner-" + (resource % OWNERS);
    }

    Command next() {
        int index = random.nextInt(resources);
        String resource = resource(index);
        String owner = random.nextInt(100) < 80 ? usualOwner(index) : "owner-" + random.nextInt(OWNERS);
        String id = UUID.randomUUID().toString();
        int pick = random.nextInt(100);
        if (pick < 50) {
            return new Command.Acquire(id, resource, owner, TTL);
        } else if (pick < 70) {
            return new Command.Renew(id, resource, owner, TTL, OptionalLong.empty());
        } else if (pick < 95) {
            return new Command.Release(id, resource, owner, OptionalLong.empty());
        }
        return new Command.Status(id, resource);
    }
}
