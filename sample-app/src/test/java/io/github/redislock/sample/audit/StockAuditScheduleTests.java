package io.github.redislock.sample.audit;

import java.time.Duration;

import io.github.redislock.autoconfigure.RedisLockProperties;
import io.github.redislock.sample.OtherInstance;
import io.github.redislock.sample.SampleAppTest;
import io.github.redislock.sample.TestRedis;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.scheduling.config.ScheduledTask;
import org.springframework.scheduling.config.ScheduledTaskHolder;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The scheduler drives the audit every {@code sample.audit.interval}: its rounds skip
 * while another instance holds the audit's lock and run once it is free.
 */
@SampleAppTest
class StockAuditScheduleTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@DynamicPropertySource
	static void redisProperties(DynamicPropertyRegistry registry) {
		TestRedis.register(redis, registry);
		registry.add("sample.audit.initial-delay", () -> "0");
		registry.add("sample.audit.interval", () -> "50ms");
	}

	@Autowired
	private StockAuditSchedule schedule;

	@Autowired
	private RedisLockProperties lockProperties;

	@Autowired
	private ScheduledTaskHolder scheduledTasks;

	// The context outlives this class's Redis (it closes after the extension stops the
	// server), so the rounds stop here, while the server still answers.
	@AfterEach
	void stopRounds() {
		this.scheduledTasks.getScheduledTasks().forEach(ScheduledTask::cancel);
	}

	@Test
	void scheduledRoundsSkipWhileAnotherInstanceHoldsTheAuditAndRunWhenItIsFree() {
		try (OtherInstance otherInstance = new OtherInstance(redis, this.lockProperties)) {
			otherInstance.whileHolding("stock-audit", () -> {
				// Rounds follow each other on one thread: once one has skipped, a round
				// that ran before the lock was taken has been counted.
				long skippedBefore = this.schedule.statistics().skipped();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> this.schedule.statistics().skipped() > skippedBefore);
				long ranWhileHeld = this.schedule.statistics().ran();
				long skippedWhileHeld = this.schedule.statistics().skipped();
				await().atMost(Duration.ofSeconds(10))
					.until(() -> this.schedule.statistics().skipped() >= skippedWhileHeld + 3);
				assertThat(this.schedule.statistics().ran()).isEqualTo(ranWhileHeld);
			});
		}
		long ranBefore = this.schedule.statistics().ran();
		await().atMost(Duration.ofSeconds(10)).until(() -> this.schedule.statistics().ran() > ranBefore);
	}

}
