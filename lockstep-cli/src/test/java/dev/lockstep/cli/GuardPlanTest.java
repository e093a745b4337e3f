package dev.lockstep.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lockstep.cli.GuardPlan.Cause;
import dev.lockstep.cli.GuardPlan.JobSignal;
import dev.lockstep.client.MonotonicInstant;
import java.time.Duration;
import org.junit.jupiter.api.Test;

class GuardPlanTest {

    private static final Duration GRACE = Duration.ofMillis(400);

    private static MonotonicInstant at(long millis) {
        return new MonotonicInstant(Duration.ofMillis(millis).toNanos());
    }

    @Test
    void aLeaseNotRenewedGetsSigtermTheGraceBeforeItsValidityEndsAndSigkillAtItsEnd() {
        GuardPlan plan = GuardPlan.holding(at(2_700), GRACE);
        assertThat(plan.nextDue()).contains(at(2_300));
        assertThat(plan.at(at(2_299)).signals()).isEmpty();

        GuardPlan.Step terminated = plan.at(at(2_300));
        assertThat(terminated.signals()).containsExactly(JobSignal.TERM);
        assertThat(terminated.plan().cause()).contains(Cause.DEADLINE);
        assertThat(terminated.plan().nextDue()).contains(at(2_700));
        assertThat(terminated.plan().at(at(2_699)).signals()).isEmpty();

        GuardPlan.Step killed = terminated.plan().at(at(2_700));
        assertThat(killed.signals()).containsExactly(JobSignal.KILL);
        assertThat(killed.plan().nextDue()).isEmpty();
        assertThat(killed.plan().at(at(9_000)).signals()).as("killed once").isEmpty();
    }

    @Test
    void aRenewalMovesTheSignalsOnWhileTheLeaseHoldsButNeverDelaysAKillOnceStopping() {
        GuardPlan plan = GuardPlan.holding(at(2_700), GRACE).renewed(at(3_700));
        assertThat(plan.nextDue()).contains(at(3_300));
        assertThat(plan.renewed(at(3_000)).nextDue()).as("never back").contains(at(3_300));

        GuardPlan stopping = plan.at(at(3_300)).plan();
        assertThat(stopping.renewed(at(9_000)).nextDue()).as("a renewal too late").contains(at(3_700));
    }

    @Test
    void aGuardThatGetsToItPastTheValidityEndSendsBothAtOnce() {
        GuardPlan.Step late = GuardPlan.holding(at(2_700), GRACE).at(at(5_000));
        assertThat(late.signals()).containsExactly(JobSignal.TERM, JobSignal.KILL);
        assertThat(late.plan().cause()).contains(Cause.DEADLINE);
    }

    @Test
    void aLeaseKnownLostGetsSigtermAtOnceAndSigkillAfterTheGraceButNeverAfterTheValidityEnd() {
        GuardPlan plan = GuardPlan.holding(at(2_700), GRACE);
        GuardPlan.Step early = plan.lost(at(1_000));
        assertThat(early.signals()).containsExactly(JobSignal.TERM);
        assertThat(early.plan().cause()).contains(Cause.LOST);
        assertThat(early.plan().nextDue()).contains(at(1_400));

        GuardPlan.Step late = plan.lost(at(2_500));
        assertThat(late.plan().nextDue()).as("the validity end comes first").contains(at(2_700));

        GuardPlan.Step afterDeadline = plan.at(at(2_300)).plan().lost(at(2_301));
        assertThat(afterDeadline.signals()).as("SIGTERM sent already").isEmpty();
        assertThat(afterDeadline.plan().nextDue()).contains(at(2_700));
        assertThat(afterDeadline.plan().cause()).contains(Cause.DEADLINE);
    }

    @Test
    void aJobWhoseExecIsGoneIsKilledAtOnce() {
        GuardPlan.Step gone = GuardPlan.holding(at(2_700), GRACE).abandoned();
        assertThat(gone.signals()).containsExactly(JobSignal.KILL);
        assertThat(gone.plan().cause()).contains(Cause.ABANDONED);
        assertThat(gone.plan().abandoned().signals()).isEmpty();
    }

    @Test
    void aJobIsStartedOnlyWhileItsSigtermIsNotYetDue() {
        GuardPlan plan = GuardPlan.holding(at(2_700), GRACE);
        assertThat(plan.canStartAt(at(2_299))).isTrue();
        assertThat(plan.canStartAt(at(2_300))).isFalse();
    }
}
