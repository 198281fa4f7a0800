package io.github.redislock.sample.audit;

import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.context.TestPropertySource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * With {@code sample.audit.hold-at-least}, a round fired again soon after a quick one, as
 * an instance whose clock is behind would fire it, is skipped rather than run twice.
 */
@SampleAppTest
@TestPropertySource(properties = "sample.audit.hold-at-least=1m")
class StockAuditHoldTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
	}

	@Autowired
	private StockAuditSchedule schedule;

	@Test
	void aLateSecondFiringOfTheSameRoundIsSkipped() {
		StockAuditStatistics before = this.schedule.statistics();
		assertThat(this.schedule.runRound()).isTrue();
		assertThat(this.schedule.runRound()).as("the same round, fired by a late clock").isFalse();
		StockAuditStatistics after = this.schedule.statistics();
		assertThat(after.ran() - before.ran()).isOne();
		assertThat(after.skipped() - before.skipped()).isOne();
		assertThat(redis.command("HGET", "sample:lock:{stock-audit}", "hold-at-least")).isEqualTo("1");
	}

}
