package dev.lockstep.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which failures are the database's as a whole, and which one batch's (a transaction over several partitions fails alike for all only on the former). */
class StoreExceptionTest {

    private static StoreException failed(String sqlState) {
        return new StoreException("batch failed", new SQLException("reason", sqlState));
    }

    @ParameterizedTest
    @ValueSource(strings = {"08006", "08003", "53300", "57014", "57P01", "58030", "XX000"})
    void connectionResourceOperatorAndInternalFailuresAreTheDatabases(String sqlState) {
        assertThat(StoreException.databaseWide(failed(sqlState))).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"23505", "22001", "40P01", "40001", "55P03", "42P01"})
    void aStatementsFailureIsItsBatchs(String sqlState) {
        assertThat(StoreException.databaseWide(failed(sqlState))).isFalse();
    }

    @Test
    void noConnectionFromThePoolOrAClosedOneIsTheDatabases() {
        assertThat(StoreException.databaseWide(new StoreException("batch failed",
                new SQLTransientConnectionException("Connection is not available, request timed out")))).isTrue();
        assertThat(StoreException.databaseWide(new IllegalStateException(new SQLException("Connection is closed"))))
                .isTrue();
    }

    @Test
    void aFailureWithNoSqlStateIsItsBatchs() {
        assertThat(StoreException.databaseWide(new StoreException("batch failed", new SQLException("odd")))).isFalse();
        assertThat(StoreException.databaseWide(new IllegalStateException("partition was never started"))).isFalse();
    }
}
