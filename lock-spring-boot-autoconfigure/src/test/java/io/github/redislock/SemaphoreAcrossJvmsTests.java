package io.github.redislock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.WorkerJvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A semaphore loaded from two JVMs at once (threads, asynchronous handles and reactive
 * pipelines here, threads and handles in a worker JVM): never more holders than permits,
 * all permits used; then the worker is killed while it holds a permit (one of its threads
 * keeps one), and it comes back within the watchdog lease with nothing left behind. And
 * the same load with both JVMs' lock connections cut again and again through a
 * {@link FaultProxy}: never more holders than permits, all of them used, none lost.
 */
class SemaphoreAcrossJvmsTests {

	private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
		.getLog(SemaphoreAcrossJvmsTests.class);

	private static final int PERMITS = 3;

	/**
	 * How long the run with cuts lasts: short in CI, longer with
	 * {@code -Dredislock.test.semaphoreCutRun=PT10M}.
	 */
	private static final Duration CUT_RUN = Duration
		.parse(System.getProperty("redislock.test.semaphoreCutRun", "PT10S"));

	/** How long connections stay healthy between two cuts. */
	private static final Duration CUT_EVERY = Duration.ofMillis(700);

	/**
	 * How long a cut lasts: shorter than a watchdog lease, so that no held permit is
	 * lost.
	 */
	private static final Duration CUT_LENGTH = Duration.ofMillis(250);

	/**
	 * The watchdog lease of the run with cuts: a renewal that a cut fails is tried again
	 * well within it.
	 */
	private static final Duration CUT_RUN_WATCHDOG = Duration.ofSeconds(4);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	@AfterEach
	void closeResources() throws Exception {
		while (!this.resources.isEmpty()) {
			this.resources.pop().close();
		}
	}

	@Test
	void twoJvmsNeverHoldMoreThanThePermitsAndAKilledOnesPermitsComeBack() throws Exception {
		String name = LockTestClients.uniqueName();
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		RedisLockClient client = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		ReactiveRedisLockClient reactive = ReactiveRedisLockClient
			.create(this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(name, PERMITS);
		Process worker = startWorker(name, "4", Long.toString(LockTestClients.TEST_WATCHDOG_TIMEOUT.toMillis()));
		AtomicBoolean stop = new AtomicBoolean();
		AtomicInteger most = new AtomicInteger();
		AtomicInteger runs = new AtomicInteger();
		List<CompletableFuture<Void>> holders = new ArrayList<>();
		try {
			for (int t = 0; t < 4; t++) {
				int kind = t % 3;
				holders.add(CompletableFuture.runAsync(() -> {
					while (!stop.get()) {
						Runnable inside = () -> {
							Long count = redisTemplate.opsForValue().increment(name + ":inside");
							most.accumulateAndGet((count != null) ? count.intValue() : 0, Math::max);
							if (count != null && count > PERMITS) {
								redisTemplate.opsForValue().increment(name + ":violations");
							}
							LockSupport.parkNanos(2_000_000);
							redisTemplate.opsForValue().decrement(name + ":inside");
							runs.incrementAndGet();
						};
						if (kind == 0) {
							try (LockHandle permit = semaphore.acquire(Duration.ofSeconds(30), null)) {
								inside.run();
							}
						}
						else if (kind == 1) {
							LockHandle permit = semaphore.acquireAsync(Duration.ofSeconds(30), null).join();
							inside.run();
							permit.release();
						}
						else {
							reactive.semaphore(name, PERMITS)
								.withLock(Duration.ofSeconds(30), null, Mono.fromRunnable(inside))
								.block(Duration.ofSeconds(60));
						}
					}
				}, TestThreads.perTask()));
			}
			await().atMost(Duration.ofSeconds(60))
				.until(() -> runs.get() >= 100 && count(redisTemplate, name + ":worker-runs") >= 20
						&& most.get() == PERMITS);
		}
		finally {
			// the holders here stop first: once the killed worker's permits run out, one
			// still looping here would count itself in beside the dead holders' counts,
			// which nobody takes out (a count over the limit, not holders over it)
			stop.set(true);
			try {
				CompletableFuture.allOf(holders.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
			}
			finally {
				// killed while its threads hold permits, as a crash would
				worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			}
		}
		long killedAt = System.nanoTime();
		long violations = count(redisTemplate, name + ":violations");
		logger.info("Semaphore of " + PERMITS + " across 2 JVMs: " + runs.get() + " runs here, "
				+ count(redisTemplate, name + ":worker-runs") + " in the worker, at most " + most.get()
				+ " holders at once, " + violations + " over the limit, " + count(redisTemplate, name + ":inside")
				+ " holder(s) killed inside");
		assertThat(violations).as("holders over the limit").isZero();
		assertThat(most.get()).isEqualTo(PERMITS);
		// its thread that keeps a permit, and any killed between taking one and letting
		// go
		assertThat(count(redisTemplate, name + ":inside")).as("the worker's holders killed inside").isBetween(1L, 4L);
		// the killed holders' permits come back within their watchdog lease
		await().atMost(Duration.ofSeconds(15)).until(() -> semaphore.availablePermits() == PERMITS);
		logger.info("The killed worker's permits were back "
				+ TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - killedAt) + " ms after the kill");
		semaphore.acquire(Duration.ofSeconds(10), null).release();
		LockTestClients.assertNothingLeftBehind(client);
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(redisTemplate.keys("lock:{" + name + "}*")).isEmpty());
	}

	@Test
	void twoJvmsWhoseConnectionsAreCutAgainAndAgainNeverHoldMoreThanThePermitsAndUseThemAll() throws Exception {
		String name = LockTestClients.uniqueName();
		StringRedisTemplate counters = this.clients.newTemplate();
		try (FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port())) {
			List<LeaseLostEvent> lost = new CopyOnWriteArrayList<>();
			RedisLockClient client = throughProxy(proxy, lost);
			ReactiveRedisLockClient reactive = ReactiveRedisLockClient.create(throughProxy(proxy, lost));
			RedisSemaphore semaphore = client.getSemaphore(name, PERMITS);
			// no keeper: every permit goes round; the counters bypass the proxy
			Process worker = startWorker(name, "4", Long.toString(CUT_RUN_WATCHDOG.toMillis()), "0",
					Integer.toString(proxy.port()));
			AtomicBoolean stop = new AtomicBoolean();
			AtomicInteger most = new AtomicInteger();
			AtomicInteger runs = new AtomicInteger();
			AtomicInteger failures = new AtomicInteger();
			AtomicInteger cuts = new AtomicInteger();
			List<CompletableFuture<Void>> threads = new ArrayList<>();
			long start = System.nanoTime();
			try {
				for (int t = 0; t < 4; t++) {
					int kind = t % 3;
					threads.add(CompletableFuture.runAsync(() -> {
						while (!stop.get()) {
							try {
								holdOnce(kind, semaphore, reactive, name, counters, most);
								runs.incrementAndGet();
							}
							catch (RedisLockException | LockNotAcquiredException ex) {
								// Redis did not answer (a cut): nobody went inside
								failures.incrementAndGet();
							}
						}
					}, TestThreads.perTask()));
				}
				threads.add(CompletableFuture.runAsync(() -> {
					while (!stop.get()) {
						// healthy a while, then cut: every connection closed, new ones
						// refused, for less than a watchdog lease
						LockSupport.parkNanos(CUT_EVERY.toNanos());
						proxy.cut();
						cuts.incrementAndGet();
						LockSupport.parkNanos(CUT_LENGTH.toNanos());
						proxy.heal();
					}
				}, TestThreads.perTask()));
				await().pollInterval(Duration.ofMillis(100))
					.atMost(CUT_RUN.plusMinutes(1))
					.until(() -> System.nanoTime() - start >= CUT_RUN.toNanos() && cuts.get() >= 3 && runs.get() >= 50
							&& count(counters, name + ":worker-runs") >= 20 && most.get() == PERMITS);
			}
			finally {
				stop.set(true);
				try {
					// the callers here finish first: a permit of the killed worker, back
					// at
					// its lease end, must not let one in beside the worker's stale count
					CompletableFuture.allOf(threads.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
				}
				finally {
					// even when a caller failed: no worker JVM is left running
					proxy.heal();
					worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
				}
			}
			long violations = count(counters, name + ":violations");
			logger.info("Semaphore of " + PERMITS + " across 2 JVMs through " + cuts + " cuts of "
					+ CUT_LENGTH.toMillis() + " ms in " + TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - start)
					+ " s: " + runs + " runs and " + failures + " failed calls here, "
					+ count(counters, name + ":worker-runs") + " runs and " + count(counters, name + ":worker-failures")
					+ " failed calls in the worker, at most " + most + " holders at once, " + violations
					+ " over the limit, " + lost.size() + " + " + count(counters, name + ":worker-lost-leases")
					+ " leases lost");
			assertThat(violations).as("holders over the limit").isZero();
			assertThat(most.get()).as("most holders at once").isEqualTo(PERMITS);
			// the premise of a strict count: no permit was lost while held
			assertThat(lost).isEmpty();
			assertThat(count(counters, name + ":worker-lost-leases")).isZero();
			// the killed worker's permits, and any whose release a cut left in doubt,
			// come back within the watchdog lease
			await().atMost(CUT_RUN_WATCHDOG.plusSeconds(10)).until(() -> semaphore.availablePermits() == PERMITS);
			LockTestClients.assertNothingLeftBehind(client);
			await().atMost(Duration.ofSeconds(10))
				.untilAsserted(() -> assertThat(counters.keys("lock:{" + name + "}*")).isEmpty());
		}
	}

	/**
	 * Takes a permit as a thread, a handle or a reactive pipeline, adds itself to the
	 * shared count of holders inside, and records the count it saw.
	 */
	private static void holdOnce(int kind, RedisSemaphore semaphore, ReactiveRedisLockClient reactive, String name,
			StringRedisTemplate counters, AtomicInteger most) {
		Runnable inside = () -> {
			// INCR, a pause, DECR: not atomic with the permit, so a holder too many shows
			Long count = counters.opsForValue().increment(name + ":inside");
			most.accumulateAndGet((count != null) ? count.intValue() : 0, Math::max);
			if (count != null && count > PERMITS) {
				counters.opsForValue().increment(name + ":violations");
			}
			LockSupport.parkNanos(2_000_000);
			counters.opsForValue().decrement(name + ":inside");
		};
		if (kind == 0) {
			try (LockHandle permit = semaphore.acquire(Duration.ofSeconds(30), null)) {
				inside.run();
			}
		}
		else if (kind == 1) {
			LockHandle permit;
			try {
				permit = semaphore.acquireAsync(Duration.ofSeconds(30), null).join();
			}
			catch (CompletionException ex) {
				throw (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
			}
			inside.run();
			permit.release();
		}
		else {
			reactive.semaphore(name, PERMITS)
				.withLock(Duration.ofSeconds(30), null, Mono.fromRunnable(inside))
				.block(Duration.ofSeconds(60));
		}
	}

	private RedisLockClient throughProxy(FaultProxy proxy, List<LeaseLostEvent> lost) {
		return this.clients.through(proxy, TestTimeouts.COMMAND_TIMEOUT,
				(builder) -> builder.watchdogTimeout(CUT_RUN_WATCHDOG).leaseLostListener(lost::add));
	}

	/**
	 * Starts a {@link SemaphoreLoadWorker} on the test's Redis; see there for the rest.
	 */
	private static Process startWorker(String name, String... rest) throws Exception {
		List<String> command = new ArrayList<>(WorkerJvm.command(SemaphoreLoadWorker.class, redis.server().host(),
				Integer.toString(redis.server().port()), name, Integer.toString(PERMITS)));
		command.addAll(List.of(rest));
		return new ProcessBuilder(command).redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
	}

	private static long count(StringRedisTemplate redisTemplate, String key) {
		String value = redisTemplate.opsForValue().get(key);
		return (value != null) ? Long.parseLong(value) : 0;
	}

}
