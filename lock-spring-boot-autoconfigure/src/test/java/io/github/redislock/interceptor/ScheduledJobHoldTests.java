package io.github.redislock.interceptor;

import java.time.Duration;
import java.util.function.UnaryOperator;

import org.junit.jupiter.api.Test;

import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What {@link ScheduledJob} computes, for a fixed rate: the hold until the end of the
 * grant's window of Redis' clock, and the wait of a firing that comes as its own last
 * hold ends. The lock itself is tested on Redis by {@code FixedRateWindowTests}.
 */
class ScheduledJobHoldTests {

	private static final long PERIOD_MICROS = 500_000;

	private static final long WINDOW_START = 3_591_549_780L * PERIOD_MICROS;

	@Test
	void aFixedRateRunKeepsItsLockUntilTheEndOfItsGrantsWindowRoundedUp() throws Exception {
		ScheduledJob job = job("rate");
		long started = System.nanoTime();
		assertThat(job.holdAtLeast(started, () -> WINDOW_START)).isEqualTo(Duration.ofMillis(500));
		assertThat(job.holdAtLeast(started, () -> WINDOW_START + 123_456)).isEqualTo(Duration.ofMillis(377));
		assertThat(job.holdAtLeast(started, () -> WINDOW_START + PERIOD_MICROS - 1)).isEqualTo(Duration.ofMillis(1));
	}

	@Test
	void aFixedRateRunWhoseGrantIsNotKnownKeepsItsLockHalfAPeriod() throws Exception {
		ScheduledJob job = job("rate");
		assertThat(job.holdAtLeast(System.nanoTime(), () -> MinimumHold.UNKNOWN_GRANT))
			.isEqualTo(Duration.ofMillis(250));
		assertThat(job.waitAtLeast(System.nanoTime())).isZero();
	}

	@Test
	void aFiringWaitsForItsOwnLastHoldOnlyWhenThatEndsWithinAQuarterOfThePeriod() throws Exception {
		ScheduledJob job = job("rate");
		assertThat(job.waitAtLeast(System.nanoTime())).as("before any run").isZero();
		long started = System.nanoTime();
		Duration hold = job.holdAtLeast(started, () -> WINDOW_START + 100_000);
		long ends = started + hold.toNanos();
		Duration grace = Duration.ofMillis(125);
		assertThat(job.waitAtLeast(ends)).isEqualTo(grace);
		assertThat(job.waitAtLeast(ends - Duration.ofMillis(10).toNanos())).isEqualTo(Duration.ofMillis(135));
		assertThat(job.waitAtLeast(ends + Duration.ofMillis(10).toNanos())).isEqualTo(Duration.ofMillis(115));
		assertThat(job.waitAtLeast(ends - grace.toNanos() - 1)).as("the hold ends later").isZero();
		assertThat(job.waitAtLeast(ends + grace.toNanos() + 1)).as("the hold ended long ago").isZero();
	}

	@Test
	void aFixedDelayOrCronJobNeverWaits() throws Exception {
		for (String method : new String[] { "delay", "cron" }) {
			ScheduledJob job = job(method);
			long started = System.nanoTime();
			job.holdAtLeast(started, () -> WINDOW_START);
			assertThat(job.waitAtLeast(started)).as(method).isZero();
		}
	}

	private static ScheduledJob job(String method) throws NoSuchMethodException {
		ScheduledJob job = ScheduledJob.of(Jobs.class.getMethod(method), UnaryOperator.identity(), method);
		assertThat(job).isNotNull();
		return job;
	}

	static class Jobs {

		@Scheduled(fixedRate = 500)
		public void rate() {
		}

		@Scheduled(fixedDelay = 500)
		public void delay() {
		}

		@Scheduled(cron = "*/2 * * * * *")
		public void cron() {
		}

	}

}
