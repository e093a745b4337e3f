package dev.lockstep.topics;

import java.util.List;

/** What {@link TopicApplier} found or did for one topic. */
public record TopicReport(String topic, Status status, List<String> drift) {

    public enum Status {
        CREATED,
        MATCHES,
        DRIFT
    }

    public TopicReport {
        drift = List.copyOf(drift);
    }

    @Override
    public String toString() {
        return switch (status) {
            case CREATED -> topic + ": created";
            case MATCHES -> topic + ": exists and matches";
            case DRIFT -> topic + ": exists but differs: " + String.join("; ", drift);
        };
    }
}
