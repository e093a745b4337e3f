package dev.lockstep.faults;

import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;

/**
 * The protected resource of the belief runs: every write carries its writer's fencing token, and a
 * token smaller than the largest this store has accepted for the resource is refused, as
 * docs/protocol.md asks of whatever a lock guards. A refused write is a holder acting after a newer
 * lease began: the fence stopped it, and the beliefs say how it came to act.
 */
final class FencedStore {

    /** A write the fence refused: who wrote, with which token, after which larger one. */
    record Refused(String client, String resource, long token, long highest, Instant at) {

        @Override
        public String toString() {
            return client + " wrote to " + resource + " with token " + token + " at " + at + ", after token "
                    + highest + " had written: refused";
        }
    }

    private final Map<String, Long> highest = new HashMap<>();
    private final Map<ClientKind, Integer> accepted = new EnumMap<>(ClientKind.class);
    private final List<Refused> refused = new ArrayList<>();

    /** @return the largest token accepted before, if it refuses this one; empty when the write is accepted */
    synchronized OptionalLong write(String client, String resource, long token, Instant at) {
        long before = highest.getOrDefault(resource, Long.MIN_VALUE);
        if (token < before) {
            refused.add(new Refused(client, resource, token, before, at));
            return OptionalLong.of(before);
        }
        highest.put(resource, token);
        accepted.merge(ClientKind.of(client), 1, Integer::sum);
        return OptionalLong.empty();
    }

    synchronized Map<ClientKind, Integer> accepted() {
        return Map.copyOf(accepted);
    }

    synchronized List<Refused> refused() {
        return List.copyOf(refused);
    }
}
