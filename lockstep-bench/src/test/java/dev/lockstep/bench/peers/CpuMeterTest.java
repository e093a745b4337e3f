package dev.lockstep.bench.peers;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Reading CPU time from /proc: a command name may hold spaces and parentheses; busy work shows. */
class CpuMeterTest {

    @Test
    void readsTheFieldsAfterTheCommandName() {
        String line = "4242 (java (main) x) S 17 4242 4242 0 -1 4194560 3077 0 0 0 250 31 0 0 20 0 44 0 1234";
        assertThat(CpuMeter.parse(line)).contains(new CpuMeter.Stat(4242, "java (main) x", 17, 281));
        assertThat(CpuMeter.parse("garbage")).isEmpty();
    }

    @Test
    void thisProcessesWorkIsCounted() {
        assertThat(CpuMeter.available()).as("a Linux /proc, as on every machine this runs on").isTrue();
        CpuMeter meter = CpuMeter.of(List.of(), name -> false);
        long before = meter.cpuNanos();
        long giveUp = System.nanoTime() + 30_000_000_000L;
        double sink = 0;
        // Busy until the meter shows 50 ms of CPU: however loaded the machine, it gets there (the
        // JVM's own threads, compiling at its start, may get there first: the meter counts them too).
        do {
            for (int i = 0; i < 1_000_000; i++) {
                sink += Math.sqrt(sink + i);
            }
        } while (meter.cpuNanos() - before < 50_000_000L && System.nanoTime() < giveUp);
        assertThat(sink).isPositive();
        assertThat(meter.cpuNanos() - before).as("the busy loop's CPU, counted").isGreaterThanOrEqualTo(50_000_000L);
    }
}
