package dev.lockstep.engine;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Where a partition's state stands: the next offset to apply, the last log time used as "now",
 * the base of its fencing tokens, and a quarantine after lost records.
 *
 * <p><b>Fencing tokens come from positions.</b> A lease granted by the record at offset {@code o}
 * gets token {@code tokenBase + o + 1}. Every resource lives on one partition (the record's
 * partition is checked against its key), and offsets only grow there, so a resource's tokens only
 * grow, with no counter to keep, no row to remember after a lease ended, and the same token every
 * time the same records are applied. When the partition starts over at offset 0 (the topic was
 * re-created), the base rises by the old next offset: above every token the old topic gave.
 *
 * @param nextOffset the offset of the next record to apply; records below it were applied
 * @param clock the partition's time: the log time known to have passed (see {@link Timekeeping})
 * @param tokenBase added to a granting record's offset (plus one) to make its token
 * @param quarantine set after records were lost; see {@link Quarantine}
 * @param lastTick the last tick applied, which the worker's next tick measures from
 * @param liveUntil no lease or quarantine dated so far ends after this; empty when not known
 *     (state from before it was kept), taken then as the longest TTL and wait after the clock
 * @param layout how the partition routes resources since a seal; empty when it never grew: as the
 *     recorded settings' partition count routes
 */
public record PartitionPosition(long nextOffset, Instant clock, long tokenBase, Optional<Quarantine> quarantine,
        Optional<TickMark> lastTick, Optional<Instant> liveUntil, Optional<Layout> layout) {

    /** A partition nothing was applied to: nothing is live. */
    public static final PartitionPosition START = new PartitionPosition(0, Instant.EPOCH, 0, Optional.empty(),
            Optional.empty(), Optional.of(Instant.EPOCH));

    public PartitionPosition {
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(quarantine, "quarantine");
        Objects.requireNonNull(lastTick, "lastTick");
        Objects.requireNonNull(liveUntil, "liveUntil");
        Objects.requireNonNull(layout, "layout");
        if (nextOffset < 0 || tokenBase < 0) {
            throw new IllegalArgumentException("offsets and token bases are not negative: " + nextOffset + ", "
                    + tokenBase);
        }
    }

    /** A position of a partition that never grew. */
    public PartitionPosition(long nextOffset, Instant clock, long tokenBase, Optional<Quarantine> quarantine,
            Optional<TickMark> lastTick, Optional<Instant> liveUntil) {
        this(nextOffset, clock, tokenBase, quarantine, lastTick, liveUntil, Optional.empty());
    }

    /** How the partition routes: its layout, or, never grown, the recorded settings' count. */
    public Layout layoutOr(EngineSettings settings) {
        return layout.orElseGet(() -> Layout.of(settings.partitions()));
    }

    /** The same position, routing as {@code next} says. */
    PartitionPosition withLayout(Layout next) {
        return new PartitionPosition(nextOffset, clock, tokenBase, quarantine, lastTick, liveUntil, Optional.of(next));
    }

    /**
     * Tokens granted from the record at {@code offset} on are above {@code bound}: the base rises
     * when it must (a partition that takes resources over from another), never falls.
     */
    PartitionPosition withTokensAbove(long bound, long offset) {
        return new PartitionPosition(nextOffset, clock, Math.max(tokenBase, Math.subtractExact(bound, offset)),
                quarantine, lastTick, liveUntil, layout);
    }

    /** A position at {@code clock} with nothing live, no tick seen: the state of a partition that starts. */
    public static PartitionPosition fresh(long nextOffset, Instant clock, long tokenBase) {
        return new PartitionPosition(nextOffset, clock, tokenBase, Optional.empty(), Optional.empty(),
                Optional.of(clock));
    }

    /**
     * The token a lease granted by the record at {@code offset} gets: with the base in force there
     * (a growth's taken may have raised it since).
     */
    public long tokenAt(long offset) {
        long base = layout.isPresent() && layout.get().growth().isPresent()
                ? Math.min(tokenBase, layout.get().growth().get().tokenBaseAt(offset)) : tokenBase;
        return Math.addExact(base, offset + 1);
    }

    /**
     * The same partition of a new topic incarnation (same name, new topic ID): offsets start at 0
     * again, tokens continue above every token the old incarnation issued, time and leases carry over.
     */
    public PartitionPosition nextIncarnation() {
        // The growth's offsets were the old incarnation's: only its count carries over.
        return new PartitionPosition(0, clock, Math.addExact(tokenBase, nextOffset), quarantine, Optional.empty(),
                liveUntil, layout.map(l -> Layout.of(l.partitions())));
    }

    /** The records from {@code nextOffset} up to {@code logStart} are gone: skip them and quarantine. */
    public PartitionPosition afterLoss(long logStart) {
        if (logStart <= nextOffset) {
            throw new IllegalArgumentException("nothing is lost when the log starts at " + logStart
                    + " and the next offset is " + nextOffset);
        }
        return new PartitionPosition(logStart, clock, tokenBase,
                Optional.of(new Quarantine(nextOffset, logStart, Optional.empty())), lastTick, liveUntil, layout);
    }

    PartitionPosition advancedTo(long next, Instant now, Optional<Quarantine> newQuarantine, Optional<TickMark> tick,
            Optional<Instant> live) {
        return new PartitionPosition(next, now, tokenBase, newQuarantine, tick, live, layout);
    }
}
