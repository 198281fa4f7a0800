package io.github.redislock.shedlock;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockAutoConfiguration;
import io.github.redislock.shedlock.JobPeriods.Firing;
import io.github.redislock.shedlock.autoconfigure.RedisLockShedLockAutoConfiguration;
import io.github.redislock.testsupport.RedisServerExtension;
import net.javacrumbs.shedlock.core.LockAssert;
import net.javacrumbs.shedlock.spring.annotation.EnableSchedulerLock;
import net.javacrumbs.shedlock.spring.annotation.SchedulerLock;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Two Spring Boot applications, each with its own scheduler, lock client and Redis
 * connections, run one {@code @Scheduled @SchedulerLock} job on a 200 ms fixed rate for
 * 10 s against one Redis: every period runs the job exactly once.
 * <p>
 * Both applications live in this JVM, but share nothing that takes part in the lock: each
 * context has its own {@code RedisLockClient} (its own owner in Redis) and its own
 * scheduler thread, and ShedLock's and the provider's per-job state is per thread. What
 * one learns of the other goes through Redis.
 * <p>
 * Each application's scheduler starts its fixed rate on the wall clock's 200 ms grid, as
 * a cron fires, so that both fire for the same ticks: a period is one tick.
 * {@code lockAtLeastFor} is half the period, counted from the acquisition: the other
 * application's firing of the same tick finds the lock taken unless it starts 100 ms
 * late, and the next tick finds it free unless the acquisition took more than 100 ms
 * beyond the firing's own lateness. The test reports both. (Fixed rates that start from
 * each application's start fire some phase apart, up to half a period, which takes that
 * much off one of the two margins: see the scheduled-jobs guide.)
 * <p>
 * A period whose every firing starts 100 ms late or more cannot be run on time by anyone;
 * it may be missed (run at most once). With both cores busy, both schedulers of this JVM
 * were seen to stall 429 ms, and two periods of 51 were missed so. In separate processes,
 * one process's stall leaves the tick to the other.
 * <p>
 * An application's first lock connects to Redis and loads the scripts: 0.6 to 6.4 s with
 * both cores busy. Taken by the first firing, it kept that application's ticks waiting,
 * then fired them at once, and those late runs kept the lock from the next ticks; so each
 * application takes a lock before its scheduler starts. Periods are counted from one
 * period after both first firings ended.
 */
class TwoApplicationsScheduledJobTests {

	private static final Log logger = LogFactory.getLog(TwoApplicationsScheduledJobTests.class);

	private static final Duration PERIOD = Duration.ofMillis(200);

	private static final Duration RUN_FOR = Duration.ofSeconds(10);

	private static final Duration LOCK_AT_LEAST_FOR = Duration.ofMillis(100);

	private static final Queue<Firing> firings = new ConcurrentLinkedQueue<>();

	private static final Queue<Run> runs = new ConcurrentLinkedQueue<>();

	private static final Map<String, Long> firstFiringsEnded = new ConcurrentHashMap<>();

	// the firing the scheduler thread is running, for the job to say which it ran for
	private static final ThreadLocal<Firing> firing = new ThreadLocal<>();

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner application = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, RedisLockAutoConfiguration.class,
				RedisLockShedLockAutoConfiguration.class))
		.withUserConfiguration(JobApplication.class)
		.withPropertyValues("spring.data.redis.host=" + redis.server().host(),
				"spring.data.redis.port=" + redis.server().port(), "spring.data.redis.timeout=10s",
				"redis-lock.command-timeout=10s");

	@Test
	void eachPeriodRunsTheJobExactlyOnceAcrossTwoApplications() {
		firings.clear();
		runs.clear();
		firstFiringsEnded.clear();
		long periods = RUN_FOR.dividedBy(PERIOD);
		this.application.withPropertyValues("job.app=first")
			.run((first) -> this.application.withPropertyValues("job.app=second")
				.run((second) -> await().atMost(RUN_FOR.multipliedBy(3))
					.until(() -> firstFiringsEnded.size() == 2
							&& System.nanoTime() - countFromNanos() > RUN_FOR.plus(PERIOD.multipliedBy(2)).toNanos())));

		JobPeriods jobPeriods = new JobPeriods(PERIOD, firings);
		List<Run> recorded = new ArrayList<>(runs);
		Map<Long, Integer> perPeriod = jobPeriods
			.runsPerFullPeriod(recorded.stream().map(Run::firing).collect(Collectors.toList()), countFromNanos());
		Duration maxLateness = firingsAfterWarmUp().map(jobPeriods::lateness).max(Duration::compareTo).orElseThrow();
		long countFrom = countFromNanos();
		Duration slowestAcquisition = recorded.stream()
			.filter((run) -> run.firing().nanos() > countFrom)
			.map((run) -> Duration.ofNanos(run.entered() - run.firing().nanos()))
			.max(Duration::compareTo)
			.orElseThrow();
		logger.info("2 applications, @SchedulerLock job every " + PERIOD.toMillis() + " ms, grids "
				+ jobPeriods.phase().toMillis() + " ms apart, first firings took " + firstFiringsTook() + ": "
				+ perPeriod.size() + " periods after warm-up, runs per period " + perPeriod.values()
				+ ", latest firing " + maxLateness.toMillis() + " ms late, slowest from firing to job "
				+ slowestAcquisition.toMillis() + " ms");
		assertThat(perPeriod).hasSizeGreaterThanOrEqualTo((int) periods - 2);
		// A period whose every firing started after the lock's time was up had no
		// instance to run it on time: both applications' schedulers (one JVM) stalled.
		List<Long> stalled = perPeriod.keySet()
			.stream()
			.filter((period) -> jobPeriods.leastLateness(period, firings).compareTo(LOCK_AT_LEAST_FOR) >= 0)
			.toList();
		logger
			.info("Periods whose firings all started " + LOCK_AT_LEAST_FOR.toMillis() + " ms late or more: " + stalled);
		assertThat(perPeriod)
			.as("runs per period (period -> runs); latest firing %d ms late, slowest from firing to job %d ms",
					maxLateness.toMillis(), slowestAcquisition.toMillis())
			.allSatisfy((period, count) -> assertThat(count).isBetween(stalled.contains(period) ? 0 : 1, 1));
		assertThat(recorded).allSatisfy((run) -> assertThat(run.lockAsserted()).isTrue());
		assertThat(recorded).extracting(Run::token).isSorted().doesNotHaveDuplicates();
	}

	// A period after both applications' first firing has ended (see the class
	// description): the fixed rate fires the ticks a slow first firing missed at once.
	private static long countFromNanos() {
		return (firstFiringsEnded.size() < 2) ? Long.MAX_VALUE
				: firstFiringsEnded.values().stream().mapToLong(Long::longValue).max().orElseThrow() + PERIOD.toNanos();
	}

	private static Stream<Firing> firingsAfterWarmUp() {
		long from = countFromNanos();
		return firings.stream().filter((fired) -> fired.nanos() > from);
	}

	private static String firstFiringsTook() {
		return firings.stream()
			.filter((fired) -> fired.index() == 0)
			.map((fired) -> fired.app() + " "
					+ Duration.ofNanos(firstFiringsEnded.get(fired.app()) - fired.nanos()).toMillis() + " ms")
			.collect(Collectors.joining(", "));
	}

	/** A run of the job, for a firing, entered at {@code entered} (nanos). */
	record Run(Firing firing, long token, boolean lockAsserted, long entered) {
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	@EnableSchedulerLock(defaultLockAtMostFor = "10s")
	static class JobApplication {

		// records every firing, the ones ShedLock skips too
		@Bean
		ThreadPoolTaskScheduler taskScheduler(@Value("${job.app}") String app) {
			AtomicInteger index = new AtomicInteger();
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler() {

				// on the wall clock's grid, as a cron: both applications fire for the
				// same ticks, whenever each started
				@Override
				public ScheduledFuture<?> scheduleAtFixedRate(Runnable task, Duration period) {
					long periodMillis = period.toMillis();
					long nextTick = (getClock().millis() / periodMillis + 1) * periodMillis;
					return scheduleAtFixedRate(task, Instant.ofEpochMilli(nextTick), period);
				}

			};
			scheduler.setThreadNamePrefix(app + "-scheduling-");
			scheduler.setTaskDecorator((task) -> () -> {
				Firing fired = new Firing(app, index.getAndIncrement(), System.nanoTime());
				firings.add(fired);
				firing.set(fired);
				try {
					task.run();
				}
				finally {
					firing.remove();
					if (fired.index() == 0) {
						firstFiringsEnded.put(app, System.nanoTime());
					}
				}
			});
			return scheduler;
		}

		// One lock before the scheduler starts (it starts once the context is refreshed):
		// the client's first connects to Redis and loads the scripts, which took seconds
		// with both cores busy, and a first firing that slow makes the fixed rate fire
		// the ticks it missed in a burst whose runs keep the next ticks' lock.
		@Bean
		SmartInitializingSingleton warmUp(RedisLockClient client) {
			return () -> client.tryAcquire("warm-up", Duration.ZERO, null).ifPresent(LockHandle::release);
		}

		@Bean
		ReportJob reportJob() {
			return new ReportJob();
		}

	}

	static class ReportJob {

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
			runs.add(new Run(firing.get(), RedisLockProvider.fencingToken().orElse(-1), asserted, System.nanoTime()));
		}

	}

}
