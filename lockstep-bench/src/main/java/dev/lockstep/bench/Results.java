package dev.lockstep.bench;

import java.util.List;

/**
 * A results file's content: the run's circumstances and its rows, one object per row.
 *
 * @param <T> a row
 */
public record Results<T>(RunInfo run, List<T> results) {
}
