package io.github.redislock;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLocked;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.task.TaskSchedulingAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * 10,000 virtual threads contend for 100 locks, through {@code RedisLock} and through
 * {@code @DistributedLock}: every thread finishes, no two holders of a name overlap (a
 * read-modify-write of a Redis counter per name loses nothing), and JFR records no
 * {@code jdk.VirtualThreadPinned} event with a frame of this library. The same for a
 * locked {@code @Scheduled} job of two instances on Boot's virtual threads
 * ({@code spring.threads.virtual.enabled=true}).
 * <p>
 * Needs a JDK with virtual threads (21+): Maven runs this class in a Surefire execution
 * of its own, on the build's JDK when it is 21+, else on the JDK that
 * {@code -Dredislock.virtualThreadsJdk} or Maven Toolchains names (README, Testing), and
 * the test fails, rather than skips, on an older one. The project compiles for Java 17,
 * so virtual threads are created reflectively.
 */
class VirtualThreadsTests {

	private static final int THREADS = 10_000;

	private static final int NAMES = 100;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void tenThousandVirtualThreadsOnAHundredNamesExcludeEachOtherAndNeverPinInThisLibrary() throws Exception {
		RedisLockClient client = this.clients
			.newClient((builder) -> generousCommandTimeout(builder.watchdogTimeout(Duration.ofSeconds(30))));
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		contendAndRecord("RedisLock", redisTemplate, (name) -> {
			RedisLock lock = client.getLock(name);
			lock.lock();
			try {
				increment(redisTemplate, name);
			}
			finally {
				lock.unlock();
			}
		});
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
	}

	@Test
	void theSameThroughDistributedLock() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.wait-time=5m", "redis-lock.command-timeout=30s")
			.withBean(Counters.class)
			.run((context) -> {
				Counters counters = context.getBean(Counters.class);
				contendAndRecord("@DistributedLock", context.getBean(StringRedisTemplate.class), counters::increment);
			});
	}

	// Found by this class: on a loaded machine, the waiter that subscribed a lock's
	// channel could see its SUBSCRIBE confirmed before it checked, take the subscription
	// for one that predated it, and not try again; with the first holder's release
	// published just before the confirmation, every waiter slept until that holder's
	// lease would have ended. It showed in about one round in ten of this test: a new
	// client each round, 10,000 virtual threads on 100 fresh names. The clients' leases
	// are 5 minutes and the threads wait at most 60 s, so a lost release fails the test
	// instead of slowing it down.
	@Test
	void freshClientsNeverLoseTheFirstReleaseOfALock() throws Exception {
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		// 5 rounds in the default build (it runs beside two other test modules);
		// -Dredislock.test.freshClientRounds=20 is the soak that found the lost release
		int rounds = Integer.getInteger("redislock.test.freshClientRounds", 5);
		for (int round = 0; round < rounds; round++) {
			RedisLockClient client = this.clients
				.newClient((builder) -> generousCommandTimeout(builder.watchdogTimeout(Duration.ofMinutes(5))));
			String prefix = LockTestClients.uniqueName();
			int thisRound = round;
			contend(prefix, THREADS, NAMES, (name) -> {
				RedisLock lock = client.getLock(name);
				try {
					assertThat(lock.tryLock(Duration.ofSeconds(60), null))
						.as("lock %s acquired within 60 s in round %d", name, thisRound)
						.isTrue();
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
				try {
					increment(redisTemplate, name);
				}
				finally {
					lock.unlock();
				}
			});
			client.close();
		}
		System.out.println("[figures] " + rounds + " rounds of " + THREADS + " virtual threads on " + NAMES
				+ " fresh names, a new client each: no lost release");
	}

	// Boot's spring.threads.virtual.enabled=true runs each @Scheduled execution on a
	// virtual thread of its own, and a fixed rate faster than the job lets executions
	// overlap: the lock (SKIP) keeps one at a time across both instances
	@Test
	void aScheduledLockedJobOnBootsVirtualThreadsRunsOnceAtATimeAcrossTwoInstances() throws Exception {
		ScheduledJob.reset();
		ApplicationContextRunner instance = new ApplicationContextRunner()
			.withConfiguration(AutoConfigurations.of(TaskSchedulingAutoConfiguration.class))
			.withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("spring.threads.virtual.enabled=true")
			.withUserConfiguration(ScheduledJobConfiguration.class);
		List<List<RecordedEvent>> recorded = new ArrayList<>();
		instance.run((first) -> instance.run((second) -> {
			assertThat(first).hasNotFailed();
			assertThat(second).hasNotFailed();
			// the first runs load the classes of the job's path (see contendAndRecord)
			await().atMost(Duration.ofSeconds(60)).until(() -> ScheduledJob.runs.get() >= 5);
			recorded.add(recordPinning(
					() -> await().atMost(Duration.ofSeconds(60)).until(() -> ScheduledJob.runs.get() >= 45)));
		}));
		List<String> pinnedHere = inThisLibrary(recorded.get(0));
		System.out.println("[figures] @Scheduled locked job on Boot's virtual threads, 2 instances, JDK "
				+ Runtime.version().feature() + ": " + ScheduledJob.runs + " runs, " + ScheduledJob.skipped
				+ " skipped calls, " + ScheduledJob.overlaps + " overlaps, " + ScheduledJob.onPlatformThreads
				+ " on platform threads, " + pinnedHere.size() + " pinned events with a frame of this library");
		assertThat(ScheduledJob.overlaps).hasValue(0);
		assertThat(ScheduledJob.onPlatformThreads).as("runs on platform threads").hasValue(0);
		assertThat(ScheduledJob.skipped.get()).as("executions that found the job running").isPositive();
		assertThat(pinnedHere).as("virtual threads pinned inside this library").isEmpty();
	}

	private static void contendAndRecord(String through, StringRedisTemplate redisTemplate, Consumer<String> locked)
			throws Exception {
		assertThat(Runtime.version().feature())
			.as("this test needs a JDK with virtual threads (21+); see README, Testing")
			.isGreaterThanOrEqualTo(21);
		String prefix = LockTestClients.uniqueName();
		// one locked call first, repeated until it succeeds: a cold JVM on a busy machine
		// can take longer than the lock command timeout to connect, and this test is
		// about contention and pinning, not about the first connection
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.untilAsserted(() -> locked.accept(prefix + ":connect"));
		// a JVM pins a virtual thread while it loads and initializes a class, once per
		// class: the library's classes are loaded before the recording starts
		contend(prefix + ":warm-up", 200, 2, locked);
		long start = System.nanoTime();
		List<RecordedEvent> pinned = recordPinning(() -> contend(prefix, THREADS, NAMES, locked));
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		List<String> pinnedHere = inThisLibrary(pinned);
		int total = 0;
		for (int n = 0; n < NAMES; n++) {
			String value = redisTemplate.opsForValue().get("counter:" + prefix + ":" + n);
			assertThat(value).as("counter of name %d", n).isEqualTo(Integer.toString(THREADS / NAMES));
			total += Integer.parseInt(value);
		}
		System.out.println("[figures] " + THREADS + " virtual threads on " + NAMES + " names through " + through
				+ ", JDK " + Runtime.version().feature() + ": " + total + " increments, " + took.toMillis() + " ms, "
				+ pinned.size() + " pinned-thread events in all, " + pinnedHere.size()
				+ " with a frame of this library");
		assertThat(total).isEqualTo(THREADS);
		assertThat(pinnedHere).as("virtual threads pinned inside this library").isEmpty();
	}

	private static List<RecordedEvent> recordPinning(Work work) throws Exception {
		Path events = Files.createTempFile("virtual-threads-", ".jfr");
		try (Recording recording = new Recording()) {
			recording.enable("jdk.VirtualThreadPinned").withStackTrace().withThreshold(Duration.ZERO);
			recording.start();
			work.run();
			recording.stop();
			recording.dump(events);
			// the file also has the events other code records (Lettuce's connection
			// events)
			return RecordingFile.readAllEvents(events)
				.stream()
				.filter((event) -> event.getEventType().getName().equals("jdk.VirtualThreadPinned"))
				.toList();
		}
		finally {
			Files.deleteIfExists(events);
		}
	}

	// each event with a frame of the library, described with all its frames
	private static List<String> inThisLibrary(List<RecordedEvent> pinned) {
		List<String> pinnedHere = pinned.stream()
			// the warm-up loads the library's classes; one that a rare path needs first
			// during the run is loaded then, pinned by the JVM once, whoever loads it
			.filter((event) -> !loadsAClass(event))
			.filter((event) -> event.getStackTrace() != null && event.getStackTrace()
				.getFrames()
				.stream()
				.map(RecordedFrame::getMethod)
				.map((method) -> method.getType().getName())
				// this test's own frames (its tasks, its locked beans and their proxies)
				// are not the library's
				.anyMatch((type) -> type.startsWith("io.github.redislock.")
						&& !type.startsWith(VirtualThreadsTests.class.getName())))
			.map((event) -> event + event.getStackTrace()
				.getFrames()
				.stream()
				.map((frame) -> frame.getMethod().getType().getName() + "." + frame.getMethod().getName() + ":"
						+ frame.getLineNumber())
				.collect(Collectors.joining("\n    ", "all frames:\n    ", "")))
			.toList();
		pinnedHere.forEach(System.out::println);
		return pinnedHere;
	}

	@FunctionalInterface
	private interface Work {

		void run() throws Exception;

	}

	private static boolean loadsAClass(RecordedEvent event) {
		return event.getStackTrace() != null && event.getStackTrace()
			.getFrames()
			.stream()
			.map((frame) -> frame.getMethod().getName())
			.anyMatch((method) -> method.equals("<clinit>") || method.startsWith("loadClass"));
	}

	// each of the threads takes one of the names' locks and increments the name's
	// counter in Redis with a GET and a SET, which loses updates if two holders overlap
	private static void contend(String prefix, int threads, int names, Consumer<String> locked) throws Exception {
		ExecutorService executor = (ExecutorService) Executors.class.getMethod("newVirtualThreadPerTaskExecutor")
			.invoke(null);
		List<Future<?>> runs = new ArrayList<>(threads);
		try {
			for (int i = 0; i < threads; i++) {
				String name = prefix + ":" + (i % names);
				runs.add(executor.submit(() -> locked.accept(name)));
			}
			for (Future<?> run : runs) {
				run.get(5, TimeUnit.MINUTES);
			}
		}
		finally {
			executor.shutdownNow();
		}
	}

	// 10,000 calls at once queue in one connection: with the build's other test modules
	// running beside this one, an answer took over the 2 s default. These tests are about
	// exclusion, pinning and lost releases, not about that bound.
	private static RedisLockClient.Builder generousCommandTimeout(RedisLockClient.Builder builder) {
		return builder.commandTimeout(Duration.ofSeconds(30));
	}

	static void increment(StringRedisTemplate redisTemplate, String name) {
		String value = redisTemplate.opsForValue().get("counter:" + name);
		redisTemplate.opsForValue()
			.set("counter:" + name, Integer.toString((value != null) ? Integer.parseInt(value) + 1 : 1));
	}

	@Configuration(proxyBeanMethods = false)
	@EnableScheduling
	static class ScheduledJobConfiguration {

		@Bean
		ScheduledJobRunner scheduledJobRunner() {
			return new ScheduledJobRunner();
		}

		@Bean
		ScheduledJob scheduledJob(ScheduledJobRunner runner) {
			return new ScheduledJob(runner);
		}

	}

	static class ScheduledJob {

		static final AtomicInteger inside = new AtomicInteger();

		static final AtomicInteger runs = new AtomicInteger();

		static final AtomicInteger overlaps = new AtomicInteger();

		static final AtomicInteger onPlatformThreads = new AtomicInteger();

		static final AtomicInteger calls = new AtomicInteger();

		static final AtomicInteger skipped = new AtomicInteger();

		private final ScheduledJobRunner runner;

		ScheduledJob(ScheduledJobRunner runner) {
			this.runner = runner;
		}

		static void reset() {
			for (AtomicInteger counter : List.of(inside, runs, overlaps, onPlatformThreads, calls, skipped)) {
				counter.set(0);
			}
		}

		// each instance fires every 10 ms; a run takes 25 ms
		@Scheduled(fixedRate = 10)
		public void fire() {
			calls.incrementAndGet();
			if (this.runner.run() == null) {
				skipped.incrementAndGet();
			}
		}

	}

	/** The locked part, a bean of its own so that the call goes through its proxy. */
	static class ScheduledJobRunner {

		@DistributedLock(name = "vt-scheduled-job", waitTime = "0", ifLocked = IfLocked.SKIP)
		public Boolean run() {
			if (!isVirtual(Thread.currentThread())) {
				ScheduledJob.onPlatformThreads.incrementAndGet();
			}
			if (ScheduledJob.inside.incrementAndGet() != 1) {
				ScheduledJob.overlaps.incrementAndGet();
			}
			try {
				Thread.sleep(25);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				ScheduledJob.inside.decrementAndGet();
			}
			ScheduledJob.runs.incrementAndGet();
			return Boolean.TRUE;
		}

	}

	private static boolean isVirtual(Thread thread) {
		try {
			return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
		}
		catch (ReflectiveOperationException ex) {
			throw new IllegalStateException(ex);
		}
	}

	static class Counters {

		private final StringRedisTemplate redisTemplate;

		Counters(StringRedisTemplate redisTemplate) {
			this.redisTemplate = redisTemplate;
		}

		@DistributedLock(name = "vt", key = "#name")
		public void increment(String name) {
			VirtualThreadsTests.increment(this.redisTemplate, name);
		}

	}

}
