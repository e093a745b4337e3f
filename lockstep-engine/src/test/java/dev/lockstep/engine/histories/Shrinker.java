package dev.lockstep.engine.histories;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Runs a generated case, and shrinks a failing one to a smallest case that fails the same way
 * (the same invariant): whole stretches of steps left out, halves first, then single steps; each
 * step made simpler (no time between it and the one before, no wait, no share, a smaller TTL...);
 * the batches and the restart made plainer. What no smaller variant breaks any more is minimal.
 */
final class Shrinker {

    /** A failing case, as small as shrinking made it, and how it failed. */
    record Shrunk(Generated generated, Violation violation, int runs) {
    }

    private final int budget;
    private int runs;

    private Shrinker(int budget) {
        this.budget = budget;
    }

    /** How the case fails, if it does. */
    static Optional<Violation> failure(Generated generated) {
        return failure(generated, run -> { });
    }

    /** How the case fails, if it does; the run, to {@code passed}, if it does not. */
    static Optional<Violation> failure(Generated generated, Consumer<HistoryRun> passed) {
        try {
            HistoryRun run = HistoryRun.run(generated.actions(), generated.settings());
            Ways.check(run, generated);
            passed.accept(run);
            return Optional.empty();
        } catch (Violation violation) {
            return Optional.of(violation);
        } catch (RuntimeException e) {
            StringWriter trace = new StringWriter();
            e.printStackTrace(new PrintWriter(trace));
            return Optional.of(new Violation("nothing throws: " + e.getClass().getSimpleName() + " " + firstWords(e),
                    trace.toString()));
        }
    }

    /** The smallest case found that fails as {@code failing} does, trying at most {@code budget} cases. */
    static Shrunk shrink(Generated failing, Violation violation, int budget) {
        Shrinker shrinker = new Shrinker(budget);
        Generated smallest = failing;
        Violation last = violation;
        boolean smaller = true;
        while (smaller && shrinker.runs < budget) {
            smaller = false;
            for (Generated candidate : shrinker.candidates(smallest)) {
                Optional<Violation> fails = shrinker.same(candidate, violation.invariant());
                if (fails.isPresent()) {
                    smallest = candidate;
                    last = fails.get();
                    smaller = true;
                    break;
                }
                if (shrinker.runs >= budget) {
                    break;
                }
            }
        }
        return new Shrunk(smallest, last, shrinker.runs);
    }

    private Optional<Violation> same(Generated candidate, String invariant) {
        runs++;
        return failure(candidate).filter(v -> v.invariant().equals(invariant));
    }

    /** Smaller variants, in the order they are tried: fewer steps first, then simpler ones, then plainer ways. */
    private List<Generated> candidates(Generated from) {
        List<Generated> candidates = new ArrayList<>();
        List<Action> actions = from.actions();
        for (int size = Math.max(1, actions.size() / 2); size >= 1; size /= 2) {
            for (int at = actions.size() - size; at >= 0; at -= size) {
                Generated fewer = from.without(at, size);
                candidates.add(fewer);
                if (size == 1) {
                    candidates.add(fewer.withActions(reachingBack(fewer.actions(), at, actions.get(at))));
                    if (actions.get(at).delay() > 0 && at < fewer.actions().size()) {
                        List<Action> sameTimes = new ArrayList<>(fewer.actions());
                        sameTimes.set(at, sameTimes.get(at).later(actions.get(at).delay()));
                        candidates.add(fewer.withActions(sameTimes));
                    }
                }
            }
            if (size == 1) {
                break;
            }
        }
        for (int i = 0; i < actions.size(); i++) {
            List<Action> variants = new ArrayList<>();
            int delay = actions.get(i).delay();
            if (delay > 0) {
                variants.add(actions.get(i).later(-delay));
                variants.add(actions.get(i).later(-1));
            }
            variants.addAll(actions.get(i).simpler());
            for (Action simpler : variants) {
                List<Action> changed = new ArrayList<>(actions);
                changed.set(i, simpler);
                candidates.add(from.withActions(changed));
            }
        }
        if (from.restartAt() != 0) {
            candidates.add(from.withWays(from.batches(), 0, 0, from.checkpointAt()));
        }
        if (from.rewind() != 0) {
            candidates.add(from.withWays(from.batches(), from.restartAt(), 0, from.checkpointAt()));
        }
        if (!from.batches().equals(List.of(1))) {
            candidates.add(from.withWays(List.of(1), from.restartAt(), from.rewind(), from.checkpointAt()));
        }
        if (from.batches().size() > 1) {
            candidates.add(from.withWays(List.of(from.batches().get(0)), from.restartAt(), from.rewind(),
                    from.checkpointAt()));
        }
        if (from.rewind() > 1) {
            candidates.add(from.withWays(from.batches(), from.restartAt(), from.rewind() - 1, from.checkpointAt()));
        }
        if (from.checkpointAt() != 0) {
            candidates.add(from.withWays(from.batches(), from.restartAt(), from.rewind(), 0));
        }
        return candidates;
    }

    /**
     * The steps after a removed one that name earlier commands by how far back they are, one
     * fewer back: so that a cancellation or a retry still names the command it named.
     */
    private static List<Action> reachingBack(List<Action> fewer, int from, Action removed) {
        boolean command = !(removed instanceof Action.Pass || removed instanceof Action.Deliver
                || removed instanceof Action.Lose || removed instanceof Action.LoseRecords);
        List<Action> changed = new ArrayList<>(fewer);
        for (int i = from; i < changed.size(); i++) {
            if (changed.get(i) instanceof Action.Cancel c && c.back() > 1 && removed instanceof Action.Acquire) {
                changed.set(i, new Action.Cancel(c.dt(), c.back() - 1, c.byOther()));
            } else if (changed.get(i) instanceof Action.Retry r && r.back() > 1 && command) {
                changed.set(i, new Action.Retry(r.dt(), r.back() - 1, r.reused()));
            }
        }
        return changed;
    }

    private static String firstWords(RuntimeException e) {
        String message = String.valueOf(e.getMessage());
        int colon = message.indexOf(':');
        return colon > 0 ? message.substring(0, colon) : message;
    }
}
