package io.github.redislock.shedlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.shedlock.autoconfigure.RedisLockShedLockAutoConfiguration;
import io.github.redislock.testsupport.RedisServerExtension;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.core.LockProvider;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.mockito.Mockito.mock;

/**
 * Applications with ShedLock and this library: the provider is there without code, backs
 * off for the application's own, and two instances share a scheduled job.
 */
class ShedLockApplicationTests {

	private static final Log logger = LogFactory.getLog(ShedLockApplicationTests.class);

	private static final Duration RUN_FOR = Duration.ofSeconds(10);

	private static final Duration PERIOD = Duration.ofMillis(200);

	private static final Queue<Run> runs = new ConcurrentLinkedQueue<>();

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				RedisLockShedLockAutoConfiguration.class))
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=10s",
				"redis-lock.command-timeout=10s");

	@Test
	void aShedLockApplicationGetsTheProviderWithoutCode() {
		this.application
			.run((context) -> assertThat(context).getBean(LockProvider.class).isInstanceOf(RedisLockProvider.class));
	}

	@Test
	void theApplicationsOwnProviderWins() {
		this.application.withUserConfiguration(OwnProvider.class)
			.run((context) -> assertThat(context).getBean(LockProvider.class)
				.isSameAs(context.getBean(OwnProvider.class).provider));
	}

	@Test
	void withoutShedLockThereIsNoProvider() {
		this.application.withClassLoader(new FilteredClassLoader(LockProvider.class))
			.run((context) -> assertThat(context).hasNotFailed().doesNotHaveBean(RedisLockProvider.class));
	}

	// Each instance fires the job every 200 ms on its own schedule; lockAtLeastFor is
	// half the period, as for any job on instances whose ticks are not aligned.
	@Test
	void twoInstancesRunAScheduledJobAboutOncePerPeriodWithIncreasingFencingTokens() {
		runs.clear();
		this.application.withUserConfiguration(Job.class)
			.run((first) -> this.application.withUserConfiguration(Job.class).run((second) -> {
				long from = System.nanoTime();
				org.awaitility.Awaitility.await()
					.atMost(RUN_FOR.plusSeconds(10))
					.until(() -> System.nanoTime() - from > RUN_FOR.toNanos());
			}));
		List<Run> recorded = new ArrayList<>(runs);
		List<Long> gaps = new ArrayList<>();
		for (int i = 1; i < recorded.size(); i++) {
			gaps.add((recorded.get(i).nanos() - recorded.get(i - 1).nanos()) / 1_000_000);
		}
		logger.info("2 instances, @SchedulerLock job every " + PERIOD + " for " + RUN_FOR + ": " + recorded.size()
				+ " runs, ms between runs " + gaps);
		long periods = RUN_FOR.dividedBy(PERIOD);
		assertThat(recorded).hasSizeBetween((int) periods - 5, (int) (periods * 3 / 2));
		assertThat(recorded).allSatisfy((run) -> assertThat(run.lockAsserted()).isTrue());
		assertThat(recorded).extracting(Run::token).isSorted().doesNotHaveDuplicates();
		// lockAtLeastFor keeps runs 100 ms apart, less what a late start took off
		assertThat(gaps).allSatisfy((gap) -> assertThat(gap).isGreaterThan(50));
	}

	record Run(long nanos, long token, boolean lockAsserted) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class Job {

		@Scheduled(fixedRate = 200)
		@SchedulerLock(name = "report", lockAtLeastFor = "100ms")
		public void report() {
			boolean asserted;
			try {
				LockAssert.assertLocked();
				asserted = true;
			}
			catch (IllegalStateException ex) {
				asserted = false;
			}
			runs.add(new Run(System.nanoTime(), RedisLockProvider.fencingToken().orElse(-1), asserted));
		}

	}

	@Configuration(proxyBeanMethods = false)
	static class OwnProvider {

		final LockProvider provider = mock(LockProvider.class);

		@Bean
		LockProvider lockProvider() {
			return this.provider;
		}

	}

}
