package io.github.redislock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;

import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.interceptor.AnnotationLockOperationSource;
import io.github.redislock.interceptor.LockOperation;
import io.github.redislock.testsupport.RedisServerExtension;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A {@code @DistributedLock} on a {@code @Scheduled} method runs each tick on one
 * instance with no attribute to tune: the lock does not wait, a tick another instance
 * runs is skipped, and the lock stays taken half-way to the next tick.
 * <p>
 * The instances are application contexts in this JVM, each scheduling the job with
 * Spring's own scheduler (cron ones on a clock of their own, set behind by up to 400 ms).
 * A run records when it started. What is asserted is the runs per tick, and that no two
 * runs come closer than the lock keeps them apart; the periods (500 ms, cron ticks 2 s
 * apart) leave margins of 250 ms and 600 ms for a firing late on a machine with both
 * cores busy. A fixed rate's runs per window of Redis' clock: see
 * {@link FixedRateWindowTests}.
 */
class ScheduledMethodTests {

	private static final Log logger = LogFactory.getLog(ScheduledMethodTests.class);

	private static final Map<String, Queue<Run>> runs = new ConcurrentHashMap<>();

	/** How long the instances run their jobs together. */
	private static final Duration WINDOW = Duration.ofSeconds(5);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner instance = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		.withPropertyValues(RedisLockTestContexts.redisProperties(redis));

	@Test
	void aScheduledMethodsLockDoesNotWaitSkipsATakenTickAndKeepsTheLockHalfWayToTheNextTick() throws Exception {
		AnnotationLockOperationSource source = new AnnotationLockOperationSource(Duration.ofSeconds(5), null);
		LockOperation rate = source.getLockOperation(PlainJob.class.getMethod("run"), PlainJob.class);
		assertThat(rate).isNotNull();
		assertThat(rate.getWaitTime()).isZero();
		assertThat(rate.getIfLocked()).isEqualTo(IfLocked.SKIP);
		LockOperation kept = source.getLockOperation(ExplicitHold.class.getMethod("run"), ExplicitHold.class);
		assertThat(kept).isNotNull();
		assertThat(kept.getHoldAtLeast()).isEqualTo(Duration.ofMillis(300));
	}

	@Test
	void aWaitTimeOnAScheduledMethodFailsStartupNamingTheMethodAndTheFix() {
		this.instance.withBean(WaitingJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure()).hasStackTraceContaining(
					"@DistributedLock on WaitingJob.run(): waitTime 5s on a @Scheduled method: every instance fires "
							+ "the job, and each would wait for the run of another instance and then run the same "
							+ "tick again")
				.hasStackTraceContaining("Remove waitTime");
		});
	}

	@Test
	void aReadLockOnAScheduledMethodFailsStartup() {
		this.instance.withBean(ReadingJob.class).run((context) -> {
			assertThat(context).hasFailed();
			assertThat(context.getStartupFailure())
				.hasStackTraceContaining(
						"@DistributedLock on ReadingJob.run(): mode = READ on a @Scheduled method: a read lock is "
								+ "shared, so every instance would run each tick")
				.hasStackTraceContaining("Use mode = WRITE");
		});
	}

	@Test
	void aWriteLockOnAScheduledMethodStartsAndIsKeptAfterEachRun() throws Exception {
		AnnotationLockOperationSource source = new AnnotationLockOperationSource(Duration.ofSeconds(5), null);
		LockOperation write = source.getLockOperation(WritingJob.class.getMethod("run"), WritingJob.class);
		assertThat(write).isNotNull();
		assertThat(write.getWaitTime()).isZero();
		assertThat(write.getIfLocked()).isEqualTo(IfLocked.SKIP);
		this.instance.withBean(WritingJob.class).run((context) -> assertThat(context).hasNotFailed());
	}

	// a composed annotation (@ScheduledJobLock) carries both @Scheduled and
	// @DistributedLock; FixedRateWindowTests places the instances' phases
	@Test
	void aFixedRateJobOnTwoInstancesRunsOncePerPeriod() throws Exception {
		Duration period = Duration.ofMillis(500);
		List<Run> recorded = runTogether(RateJob.class, 2, Duration.ZERO);
		logger.info("fixedRate " + period + " on 2 instances for " + WINDOW + ": " + recorded.size() + " runs, "
				+ "ms between runs " + gaps(recorded) + ", by instance " + byInstance(recorded));
		long periods = WINDOW.dividedBy(period);
		// At most once per window of Redis' clock as long as the period: the measured
		// time starts and ends within a window, so it holds one window more than
		// periods. A window is missed when no firing is granted within it after the
		// hold before it ended: on a machine loaded 12 times over its cores, stalls
		// missed 3 of 10. Without the scheduled defaults each instance ran every tick.
		assertThat(recorded).as("runs in %d periods", periods).hasSizeBetween((int) periods / 2, (int) periods + 1);
	}

	@Test
	void aCronJobOnThreeInstancesWithSkewedClocksRunsOncePerTick() throws Exception {
		Duration window = Duration.ofSeconds(8);
		List<Run> recorded = runTogether(CronJob.class, 3, Duration.ofMillis(200), window);
		// an instance behind by up to 400 ms fires a tick in the same two seconds of
		// real time as the one whose clock is right
		Map<Long, Integer> perTick = countPer(recorded, Duration.ofSeconds(2));
		logger.info(
				"cron every 2 s on 3 instances, clocks 0, 200 and 400 ms behind, for " + window + ": " + recorded.size()
						+ " runs, per tick " + perTick + ", by instance " + byInstance(recorded) + ": " + recorded);
		assertThat(perTick).as("ticks run").hasSizeGreaterThanOrEqualTo(3);
		assertThat(perTick.values()).as("runs per tick").containsOnly(1);
	}

	@Test
	void aFixedDelayJobOnTwoInstancesNeverRunsTwiceWithinHalfTheDelayOfARunsEnd() throws Exception {
		List<Run> recorded = runTogether(DelayJob.class, 2, Duration.ZERO);
		logger.info("fixedDelay 500ms (100 ms runs) on 2 instances for " + WINDOW + ": " + recorded.size()
				+ " runs, gaps " + gaps(recorded) + " ms, by instance " + byInstance(recorded));
		// one instance alone runs every 600 ms (8 times in the window), slower when the
		// machine is loaded: half of that shows the job is not starved
		assertThat(recorded).hasSizeGreaterThanOrEqualTo((int) (WINDOW.toMillis() / 600) / 2);
		// a run keeps the lock 250 ms after it ends: the next starts at least 350 ms
		// after this one (less what a late start of this one's method took off)
		assertThat(gaps(recorded)).as("ms between runs").allSatisfy((gap) -> assertThat(gap).isGreaterThan(200));
	}

	// starts the instances one after another (the k-th with its scheduler's clock k
	// times skew behind), lets them run the job together for WINDOW, and returns the
	// runs in that window in the order they started
	private List<Run> runTogether(Class<?> job, int instances, Duration skew) throws Exception {
		return runTogether(job, instances, skew, WINDOW);
	}

	private List<Run> runTogether(Class<?> job, int instances, Duration skew, Duration duration) throws Exception {
		String run = UUID.randomUUID().toString();
		Queue<Run> queue = runs.computeIfAbsent(run, (key) -> new ConcurrentLinkedQueue<>());
		List<Run> window = new ArrayList<>();
		startAndRun(job, run, instances, 0, skew, () -> {
			// once the job ran (an instance's first lock connects and loads the scripts,
			// seconds on a busy machine, and its scheduler then fires late), and after a
			// second to settle: the last instance's start kept the others' schedulers
			// from firing on time
			await().atMost(Duration.ofSeconds(30)).until(() -> !queue.isEmpty());
			Instant from = Instant.now().plusSeconds(1);
			Instant to = from.plus(duration);
			await().atMost(duration.plusSeconds(11)).until(() -> Instant.now().isAfter(to));
			for (Run recorded : queue) {
				if (!recorded.at().isBefore(from) && recorded.at().isBefore(to)) {
					window.add(recorded);
				}
			}
		});
		runs.remove(run);
		return window;
	}

	private void startAndRun(Class<?> job, String run, int instances, int index, Duration skew, Runnable together) {
		if (index == instances) {
			together.run();
			return;
		}
		this.instance.withUserConfiguration(Scheduling.class, job)
			.withPropertyValues("test.run=" + run, "test.instance=" + index,
					"test.clock-behind-ms=" + skew.multipliedBy(index).toMillis())
			.run((context) -> {
				assertThat(context).hasNotFailed();
				startAndRun(job, run, instances, index + 1, skew, together);
			});
	}

	private static Map<Long, Integer> countPer(List<Run> recorded, Duration slot) {
		Map<Long, Integer> counts = new TreeMap<>();
		for (Run run : recorded) {
			counts.merge(run.at().toEpochMilli() / slot.toMillis(), 1, Integer::sum);
		}
		return counts;
	}

	private static List<Long> gaps(List<Run> recorded) {
		List<Long> gaps = new ArrayList<>();
		for (int i = 1; i < recorded.size(); i++) {
			gaps.add(Duration.between(recorded.get(i - 1).at(), recorded.get(i).at()).toMillis());
		}
		return gaps;
	}

	private static Map<Integer, Integer> byInstance(List<Run> recorded) {
		Map<Integer, Integer> counts = new TreeMap<>();
		recorded.forEach((run) -> counts.merge(run.instance(), 1, Integer::sum));
		return counts;
	}

	private static void record(String run, int instance) {
		runs.computeIfAbsent(run, (key) -> new ConcurrentLinkedQueue<>()).add(new Run(instance, Instant.now()));
	}

	record Run(int instance, Instant at) {

		@Override
		public String toString() {
			return this.instance + "@" + (this.at.toEpochMilli() % 10_000);
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class Scheduling {

		@Bean
		ThreadPoolTaskScheduler taskScheduler(@Value("${test.clock-behind-ms}") long behind) {
			ThreadPoolTaskScheduler scheduler = new ThreadPoolTaskScheduler();
			scheduler.setClock(Clock.offset(Clock.systemDefaultZone(), Duration.ofMillis(-behind)));
			return scheduler;
		}

	}

	/** What a team defines once for its jobs. */
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@Scheduled
	@DistributedLock
	@interface ScheduledJobLock {

		@AliasFor(annotation = DistributedLock.class, attribute = "name")
		String name();

		@AliasFor(annotation = Scheduled.class, attribute = "fixedRate")
		long fixedRate() default -1;

	}

	static class RateJob {

		@Value("${test.run:}")
		private String run = "";

		@Value("${test.instance:0}")
		private int instance;

		@ScheduledJobLock(name = "rate-job:${test.run:}", fixedRate = 500)
		public void run() {
			record(this.run, this.instance);
		}

	}

	static class CronJob {

		@Value("${test.run}")
		private String run = "";

		@Value("${test.instance}")
		private int instance;

		@Scheduled(cron = "*/2 * * * * *")
		@DistributedLock(name = "cron-job:${test.run}")
		public void run() {
			record(this.run, this.instance);
		}

	}

	static class DelayJob {

		@Value("${test.run}")
		private String run = "";

		@Value("${test.instance}")
		private int instance;

		@Scheduled(fixedDelay = 500)
		@DistributedLock(name = "delay-job:${test.run}")
		public void run() throws InterruptedException {
			record(this.run, this.instance);
			Thread.sleep(100);
		}

	}

	static class PlainJob {

		@Scheduled(fixedRate = 1000)
		@DistributedLock
		public void run() {
		}

	}

	static class ExplicitHold {

		@Scheduled(fixedRate = 1000)
		@DistributedLock(holdAtLeast = "300ms")
		public void run() {
		}

	}

	static class WaitingJob {

		@Scheduled(fixedRate = 1000)
		@DistributedLock(waitTime = "5s")
		public void run() {
		}

	}

	static class WritingJob {

		@Scheduled(fixedRate = 1000)
		@DistributedLock(mode = LockMode.WRITE)
		public void run() {
		}

	}

	static class ReadingJob {

		@Scheduled(fixedRate = 1000)
		@DistributedLock(mode = LockMode.READ)
		public void run() {
		}

	}

}
