package io.github.redislock.sample.audit;

import io.github.redislock.testsupport.AutoConfigureTestRedis;
import io.github.redislock.testsupport.LockRecorder;
import io.github.redislock.testsupport.TestLocks;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The sample tested as an application's own tests would be, with only
 * {@link AutoConfigureTestRedis} and its beans: no Redis to start or wire, whatever
 * {@code application.yml} says. The audit round runs under its lock, and the lock it
 * keeps after a round ({@code sample.audit.hold-at-least}, 10 s) makes the next round
 * skip until the test releases it; after each test it is released anyway, so the two
 * tests pass in either order.
 */
@SpringBootTest(properties = "sample.audit.initial-delay=1h")
@AutoConfigureTestRedis
class StockAuditLockTests {

	@Autowired
	private StockAuditSchedule schedule;

	@Autowired
	private LockRecorder locks;

	@Autowired
	private TestLocks testLocks;

	@Test
	void roundRunsUnderTheAuditLock() {
		boolean ran = this.locks.assertHeldDuring("stock-audit", () -> this.schedule.runRound());
		assertThat(ran).isTrue();
		assertThat(this.locks.acquired()).containsExactly("stock-audit");
		assertThat(this.locks.isHeld("stock-audit")).isFalse();
	}

	@Test
	void roundRightAfterAnotherSkipsUntilTheLockIsReleased() {
		assertThat(this.schedule.runRound()).isTrue();
		assertThat(this.schedule.runRound()).as("the lock is kept 10 s after a round began").isFalse();
		assertThat(this.testLocks.releaseAll()).isPositive();
		assertThat(this.schedule.runRound()).isTrue();
	}

}
