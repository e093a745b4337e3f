package dev.lockstep.engine.histories;

import dev.lockstep.engine.EngineSettings;
import dev.lockstep.engine.Timekeeping;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.Set;

/**
 * One generated case: the steps of a history, and the ways its log is decided again (batch splits,
 * a restart, a checkpoint). Made from a seed alone, so a seed names a case.
 *
 * @param batches the sizes of the worker's batches, used in turn
 * @param restartAt the step after whose records the worker restarts; 0 for none
 * @param rewind how many records before that the restarted worker fetches again
 * @param checkpointAt the step after whose records a replay resumes from a checkpoint; 0 for the start
 */
record Generated(long seed, List<Action> actions, List<Integer> batches, int restartAt, int rewind, int checkpointAt) {

    Generated {
        actions = List.copyOf(actions);
        batches = List.copyOf(batches);
    }

    /**
     * The settings the case is decided under: a quarter of the seeds keep log-append time (as old
     * logs are replayed), the rest keep time anchored at the worker's ticks, as a worker does now.
     */
    EngineSettings settings() {
        return Math.floorMod(seed, 4) == 0 ? HistoryRun.SETTINGS
                : HistoryRun.SETTINGS.withTimekeeping(new Timekeeping.Anchored(Timekeeping.DEFAULT_SLACK));
    }

    Generated withActions(List<Action> changed) {
        return new Generated(seed, changed, batches, restartAt, rewind, checkpointAt);
    }

    /** Without the steps from {@code from} on, {@code count} of them: the restart and checkpoint stay after the same steps. */
    Generated without(int from, int count) {
        List<Action> fewer = new ArrayList<>(actions.subList(0, from));
        fewer.addAll(actions.subList(from + count, actions.size()));
        return new Generated(seed, fewer, batches, after(restartAt, from, count), rewind,
                after(checkpointAt, from, count));
    }

    private static int after(int step, int from, int count) {
        return step > from + count ? step - count : Math.min(step, from);
    }

    Generated withWays(List<Integer> batchSizes, int restart, int back, int checkpoint) {
        return new Generated(seed, actions, batchSizes, restart, back, checkpoint);
    }

    /**
     * A case of at most {@code length} steps, none of the kinds {@code without} names (simple class
     * names of {@link Action}'s records). Commands dominate; a third of them come at the same log
     * time as the one before, and TTLs, waits and passing time are a few whole seconds, so that
     * ends fall on records' very instants.
     */
    static Generated of(long seed, int length, Set<String> without) {
        SplittableRandom random = new SplittableRandom(seed);
        int steps = 1 + random.nextInt(length);
        List<Action> actions = new ArrayList<>(steps);
        while (actions.size() < steps) {
            Action next = next(random);
            if (!without.contains(next.getClass().getSimpleName())) {
                actions.add(next);
            }
        }
        List<Integer> batches = new ArrayList<>();
        for (int i = 1 + random.nextInt(4); i > 0; i--) {
            batches.add(1 + random.nextInt(random.nextInt(4) == 0 ? 12 : 4));
        }
        return new Generated(seed, actions, batches, random.nextInt(3) == 0 ? 0 : 1 + random.nextInt(steps),
                random.nextInt(4), random.nextInt(steps + 1));
    }

    private static Action next(SplittableRandom random) {
        int dice = random.nextInt(100);
        int dt = random.nextInt(5) < 3 ? 0 : 1 + random.nextInt(random.nextInt(3) + 1);
        int owner = random.nextInt(Action.OWNERS.length);
        int resource = random.nextInt(20) < 14 ? 0 : random.nextInt(5) < 4 ? 1 : 2;
        if (dice < 50) {
            int wait = random.nextInt(10) < 3 ? 0 : 1 + random.nextInt(10);
            // Shared acquires mostly of one limit, so that they share a resource; now and then another.
            int limit = random.nextInt(5) < 2 ? 0 : random.nextInt(5) == 0 ? 1 + random.nextInt(4) : 3;
            int value = random.nextInt(limit > 0 ? 2 : 3) == 0 ? 1 + random.nextInt(2) : 0;
            // Leases of one length end together now and then: a run of hand-overs follows.
            int ttl = random.nextInt(5) < 3 ? 6 : 1 + random.nextInt(8);
            return new Action.Acquire(dt, owner, resource, ttl, wait, limit, value);
        } else if (dice < 55) {
            return new Action.Renew(dt, owner, resource, 1 + random.nextInt(5), token(random));
        } else if (dice < 61) {
            return new Action.Release(dt, owner, resource, token(random));
        } else if (dice < 68) {
            return new Action.Cancel(dt, random.nextInt(8) == 0 ? 0 : 1 + random.nextInt(random.nextInt(3) + 1),
                    random.nextInt(6) == 0);
        } else if (dice < 71) {
            return new Action.Status(dt, resource, random.nextBoolean() ? owner : -1);
        } else if (dice < 75) {
            return new Action.Retry(dt, 1 + random.nextInt(random.nextInt(4) + 1), random.nextInt(4) == 0);
        } else if (dice < 84) {
            return new Action.Pass(1 + random.nextInt(6), random.nextInt(3) == 0 ? 250 : 0);
        } else if (dice < 93) {
            return new Action.Deliver(1 + random.nextInt(3));
        } else if (dice < 99) {
            return new Action.Lose();
        }
        return new Action.LoseRecords(1 + random.nextInt(3));
    }

    private static Action.Token token(SplittableRandom random) {
        return Action.Token.values()[random.nextInt(3)];
    }

    @Override
    public String toString() {
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < actions.size(); i++) {
            text.append(String.format("  %2d. %s%n", i + 1, actions.get(i)));
        }
        text.append("  worker's batches of ").append(batches).append(restartAt == 0 ? ", no restart"
                : ", restarted after step " + restartAt + ", fetching " + rewind + " records again")
                .append("; a replay resumes from a checkpoint after step ").append(checkpointAt);
        return text.toString();
    }
}
