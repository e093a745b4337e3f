package dev.lockstep.bench;

import com.fasterxml.jackson.annotation.JsonProperty;

/**
 * One measured run, as written to {@code results.json}.
 *
 * @param offeredPerS the fixed offered load, or {@code null} for maximum throughput
 * @param p50Ms latency percentiles; {@code null} when no command was answered
 * @param errors commands not answered within 10 s of the run's end, plus {@code invalid} replies
 */
public record BenchResult(
        @JsonProperty("mode") String mode,
        @JsonProperty("scenario") String scenario,
        @JsonProperty("offered_per_s") Integer offeredPerS,
        @JsonProperty("commands_per_s") double commandsPerS,
        @JsonProperty("p50_ms") Double p50Ms,
        @JsonProperty("p99_ms") Double p99Ms,
        @JsonProperty("p999_ms") Double p999Ms,
        @JsonProperty("errors") long errors) {
}
