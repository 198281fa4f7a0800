package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * A client given only a meter registry: the acquire and hold timers, the gauges of held
 * locks and waiting threads, and the lease-lost counter, after real lock traffic.
 */
class LockMetersTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final MeterRegistry meters = new SimpleMeterRegistry();

	private RedisLockClient client;

	private String group;

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient((builder) -> builder.meterRegistry(this.meters));
		this.group = LockTestClients.uniqueName();
	}

	@Test
	void timersCountAcquisitionsByOutcomeAndHoldsByName() throws Exception {
		for (int order = 1; order <= 3; order++) {
			RedisLock lock = this.client.getLock(this.group + ":" + order);
			lock.lock();
			lock.unlock();
		}
		RedisLock busy = this.clients.newClient().getLock(this.group + ":busy");
		busy.lock();
		assertThat(this.client.getLock(this.group + ":busy").tryLock(Duration.ofMillis(20), null)).isFalse();
		assertThat(acquireCount("acquired")).isEqualTo(3);
		assertThat(acquireCount("timed-out")).isEqualTo(1);
		assertThat(this.meters.get("redis.lock.hold").tags("name", this.group, "lease", "watchdog").timer().count())
			.isEqualTo(3);
		assertThat(this.meters.find("redis.lock.acquire").tag("name", this.group + ":1").timer())
			.as("no meter per resolved name")
			.isNull();
	}

	@Test
	void gaugesShowHeldLocksAndWaitingThreadsNow() throws Exception {
		RedisLock first = this.client.getLock(this.group + ":1");
		RedisLock second = this.client.getLock(this.group + ":2");
		first.lock();
		second.lock();
		assertThat(gauge("redis.lock.held")).isEqualTo(2);
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				RedisLock lock = this.client.getLock(this.group + ":1");
				boolean acquired = lock.tryLock(Duration.ofSeconds(10), null);
				lock.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> gauge("redis.lock.waiting") == 1);
		first.unlock();
		assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
		second.unlock();
		assertThat(gauge("redis.lock.held")).isZero();
		assertThat(gauge("redis.lock.waiting")).isZero();
	}

	@Test
	void lostLeasesAreCountedByNameAndByWhatFoundThem() {
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		RedisLock watched = this.client.getLock(this.group + ":watched");
		watched.lock();
		redisTemplate.delete("lock:{" + watched.getName() + "}");
		LockTestClients.inspector(this.client).renewNow();
		RedisLock expiring = this.client.getLock(this.group + ":expiring");
		expiring.lock(Duration.ofMillis(50));
		await().atMost(Duration.ofSeconds(5)).until(() -> !expiring.isLocked());
		assertThatThrownBy(expiring::unlock).isInstanceOf(LeaseExpiredException.class);
		// the watched lock's unlock finds the loss the watchdog reported already
		assertThatThrownBy(watched::unlock).isInstanceOf(LeaseExpiredException.class);
		assertThat(leaseLost("watchdog")).isEqualTo(1);
		assertThat(leaseLost("unlock")).isEqualTo(1);
		assertThat(this.meters.get("redis.lock.hold").tags("name", this.group, "lease", "fixed").timer().count())
			.isEqualTo(1);
	}

	@Test
	void handlesAndAsynchronousWaitersAreMeasuredLikeThreads() throws Exception {
		LockHandle first = this.client.acquire(this.group + ":1", Duration.ZERO, null);
		assertThat(gauge("redis.lock.held")).isEqualTo(1);
		CompletableFuture<LockHandle> waiter = this.client.acquireAsync(this.group + ":1", Duration.ofSeconds(10),
				null);
		await().atMost(Duration.ofSeconds(5)).until(() -> gauge("redis.lock.waiting") == 1);
		CompletableFuture.runAsync(first::release, TestThreads.perTask()).get(10, TimeUnit.SECONDS);
		LockHandle second = waiter.get(10, TimeUnit.SECONDS);
		// the acquisition leaves the queue just after its future completes
		await().atMost(Duration.ofSeconds(5)).until(() -> gauge("redis.lock.waiting") == 0);
		second.release();
		LockHandle expiring = this.client.acquireAsync(this.group + ":2", Duration.ZERO, Duration.ofMillis(50))
			.get(10, TimeUnit.SECONDS);
		await().atMost(Duration.ofSeconds(5)).until(() -> !expiring.isHeld());
		assertThat(expiring.releaseAsync()).failsWithin(Duration.ofSeconds(10))
			.withThrowableOfType(java.util.concurrent.ExecutionException.class)
			.havingCause()
			.isInstanceOf(LeaseExpiredException.class);
		assertThat(gauge("redis.lock.held")).isZero();
		assertThat(acquireCount("acquired")).isEqualTo(3);
		assertThat(this.meters.get("redis.lock.hold").tags("name", this.group, "lease", "watchdog").timer().count())
			.isEqualTo(2);
		assertThat(leaseLost("unlock")).isEqualTo(1);
	}

	@Test
	void closingTheClientRemovesItsGauges() {
		assertThat(this.meters.find("redis.lock.held").gauge()).isNotNull();
		this.client.close();
		assertThat(this.meters.find("redis.lock.held").gauge()).isNull();
		assertThat(this.meters.find("redis.lock.waiting").gauge()).isNull();
	}

	private long acquireCount(String outcome) {
		return this.meters.get("redis.lock.acquire").tags("name", this.group, "outcome", outcome).timer().count();
	}

	private double gauge(String name) {
		return this.meters.get(name).gauge().value();
	}

	private double leaseLost(String detectedBy) {
		return this.meters.get("redis.lock.lease.lost")
			.tags("name", this.group, "detected.by", detectedBy)
			.counter()
			.count();
	}

}
