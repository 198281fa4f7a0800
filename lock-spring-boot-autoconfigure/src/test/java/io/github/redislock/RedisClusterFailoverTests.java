package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.testsupport.RedisClusterExtension;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A manual {@code CLUSTER FAILOVER} of the master serving a contended lock, while two
 * clients contend for it: locking goes on against the promoted replica (MOVED redirects),
 * and no hold overlaps another.
 */
class RedisClusterFailoverTests {

	@RegisterExtension
	@Order(1)
	final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

	// closed before the Cluster stops: extensions end in the reverse of their order
	@RegisterExtension
	@Order(2)
	final LockTestClients clients = LockTestClients.on(this.redis::configuration, Duration.ofSeconds(2));

	@Test
	void lockingGoesOnThroughAFailoverOfTheLocksMaster() throws Exception {
		String name = "failover-" + LockTestClients.uniqueName();
		String counter = "counter:{" + name + "}";
		AtomicBoolean running = new AtomicBoolean(true);
		AtomicLong lastSuccess = new AtomicLong();
		AtomicInteger acquisitions = new AtomicInteger();
		List<CompletableFuture<Void>> contenders = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			RedisLockClient client = this.clients.newClient(Duration.ofSeconds(30));
			StringRedisTemplate redis = this.clients.newTemplate();
			contenders.add(CompletableFuture.runAsync(() -> {
				RedisLock lock = client.getLock(name);
				while (running.get()) {
					try {
						if (lock.tryLock(Duration.ofMillis(500), Duration.ofSeconds(10))) {
							try {
								String value = redis.opsForValue().get(counter);
								redis.opsForValue()
									.set(counter, Integer.toString((value != null) ? Integer.parseInt(value) + 1 : 1));
								acquisitions.incrementAndGet();
								lastSuccess.set(System.nanoTime());
							}
							finally {
								lock.unlock();
							}
						}
					}
					catch (RuntimeException ex) {
						// the failover: keep going
					}
					catch (InterruptedException ex) {
						return;
					}
				}
			}, TestThreads.perTask()));
		}
		await().atMost(Duration.ofSeconds(10)).until(() -> acquisitions.get() > 20);
		long failedOverAt = System.nanoTime();
		this.redis.cluster().failOverMasterOf("lock:{" + name + "}");
		int before = acquisitions.get();
		await().atMost(Duration.ofSeconds(30)).until(() -> acquisitions.get() > before + 20);
		running.set(false);
		CompletableFuture.allOf(contenders.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
		StringRedisTemplate redis = this.clients.newTemplate();
		assertThat(redis.opsForValue().get(counter)).isEqualTo(Integer.toString(acquisitions.get()));
		System.out.printf(
				"CLUSTER FAILOVER: locking went on; %d acquisitions, the last %d ms after the failover began%n",
				acquisitions.get(), TimeUnit.NANOSECONDS.toMillis(lastSuccess.get() - failedOverAt));
	}

}
