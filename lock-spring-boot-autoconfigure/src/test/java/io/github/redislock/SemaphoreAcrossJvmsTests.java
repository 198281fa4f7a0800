package io.github.redislock;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.RedisServerExtension;
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
 * keeps one), and it comes back within the watchdog lease with nothing left behind.
 */
class SemaphoreAcrossJvmsTests {

	private static final org.apache.commons.logging.Log logger = org.apache.commons.logging.LogFactory
		.getLog(SemaphoreAcrossJvmsTests.class);

	private static final int PERMITS = 3;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void twoJvmsNeverHoldMoreThanThePermitsAndAKilledOnesPermitsComeBack() throws Exception {
		String name = LockTestClients.uniqueName();
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		RedisLockClient client = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		ReactiveRedisLockClient reactive = ReactiveRedisLockClient
			.create(this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(name, PERMITS);
		Process worker = new ProcessBuilder(
				System.getProperty("java.home") + File.separator + "bin" + File.separator + "java", "-cp",
				System.getProperty("java.class.path"), SemaphoreLoadWorker.class.getName(), redis.server().host(),
				Integer.toString(redis.server().port()), name, Integer.toString(PERMITS), "4",
				Long.toString(LockTestClients.TEST_WATCHDOG_TIMEOUT.toMillis()))
			.redirectErrorStream(true)
			.redirectOutput(ProcessBuilder.Redirect.DISCARD)
			.start();
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
			// killed while its threads hold permits, as a crash would
			worker.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
			stop.set(true);
		}
		long killedAt = System.nanoTime();
		CompletableFuture.allOf(holders.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
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

	private static long count(StringRedisTemplate redisTemplate, String key) {
		String value = redisTemplate.opsForValue().get(key);
		return (value != null) ? Long.parseLong(value) : 0;
	}

}
