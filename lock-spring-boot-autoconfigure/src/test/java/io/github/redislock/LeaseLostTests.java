package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockHandle#leaseLost()} and {@link RedisLock#leaseLost()} against a real Redis:
 * they complete when a renewal finds the lock gone, and, with Redis stalled (SIGSTOP),
 * before the lease could end; never after a release. The lease is lost as
 * {@link LeaseLossHarness} loses it.
 */
class LeaseLostTests {

	private static final Duration TIMEOUT = LeaseLossHarness.TIMEOUT;

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@RegisterExtension
	final LeaseLossHarness harness = new LeaseLossHarness(redis);

	@Test
	void aHandlesLossIsToldWhenARenewalFindsTheLockGone() {
		RedisLockClient client = this.clients.newClient(Duration.ofSeconds(3));
		LockHandle handle = client.acquire(LockTestClients.uniqueName(), Duration.ofSeconds(5), null);
		AtomicLong toldAt = new AtomicLong();
		CompletableFuture<LeaseLostEvent> lost = handle.leaseLost().thenApply((event) -> {
			toldAt.set(System.nanoTime());
			return event;
		}).toCompletableFuture();
		assertThat(lost).isNotDone();
		long deletedAt = System.nanoTime();
		this.harness.takeAway(handle.name());
		assertThat(lost).succeedsWithin(TIMEOUT).satisfies((event) -> {
			assertThat(event.lockName()).isEqualTo(handle.name());
			assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.WATCHDOG);
		});
		System.out.printf("leaseLost() told %d ms after the key was deleted (watchdog 3 s: renewals every 1 s)%n",
				(toldAt.get() - deletedAt) / 1_000_000);
		// asked after the loss was found: completes at once
		assertThat(handle.leaseLost()).isCompleted();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(handle::release);
	}

	@Test
	void aThreadsLossIsToldAndTheStageCannotBeCompletedFromOutside() {
		RedisLockClient client = this.clients.newClient(Duration.ofSeconds(3));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::leaseLost)
			.withMessageContaining("not held by the current thread");
		lock.lock();
		CompletableFuture<LeaseLostEvent> lost = lock.leaseLost().toCompletableFuture();
		// a copy: completing it does not complete the lock's
		lost.complete(null);
		assertThat(lock.leaseLost()).isNotCompleted();
		CompletableFuture<LeaseLostEvent> watched = lock.leaseLost().toCompletableFuture();
		this.harness.takeAway(lock.getName());
		assertThat(watched).succeedsWithin(TIMEOUT)
			.satisfies((event) -> assertThat(event.threadName()).isEqualTo(Thread.currentThread().getName()));
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
	}

	@Test
	void aThreadThatEntersAgainAfterItsLossIsToldAtEveryReleaseOfTheLostHolds() {
		RedisLockClient client = this.clients.newClient(Duration.ofSeconds(3));
		String name = LockTestClients.uniqueName();
		RedisLock lock = client.getLock(name);
		lock.lock();
		lock.lock();
		CompletableFuture<LeaseLostEvent> watched = lock.leaseLost().toCompletableFuture();
		this.harness.takeAway(name);
		assertThat(watched).succeedsWithin(TIMEOUT);
		// entered again: Redis grants the lock anew, under a hold of its own
		assertThat(lock.tryLock()).isTrue();
		assertThat(lock.getHoldCount()).isOne();
		lock.unlock();
		RedisLock other = this.clients.newClient().getLock(name);
		assertThat(other.tryLock()).as("freed by the new hold's release").isTrue();
		// the two holds taken before the loss: each release says the lease was lost
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		assertThat(other.isHeldByCurrentThread()).as("and the other client's hold stays").isTrue();
		other.unlock();
	}

	@Test
	void neverToldAfterARelease() {
		RedisLockClient client = this.clients.newClient(Duration.ofMillis(900));
		LockHandle handle = client.acquire(LockTestClients.uniqueName(), Duration.ofSeconds(5), null);
		CompletableFuture<LeaseLostEvent> lost = handle.leaseLost().toCompletableFuture();
		handle.release();
		// the next holder's lock deleted: nothing of the released handle's is lost
		LockHandle next = client.acquire(handle.name(), Duration.ofSeconds(5), null);
		this.harness.takeAway(handle.name());
		assertThat(next.leaseLost()).succeedsWithin(TIMEOUT);
		// renewals ran past three of the old lease's ends
		await().during(Duration.ofMillis(2700)).atMost(TIMEOUT).until(() -> !lost.isDone());
	}

	@Test
	void withRedisStalledTheLossIsToldBeforeTheLeaseCouldEnd() throws Exception {
		Duration watchdog = Duration.ofSeconds(6);
		RedisLockClient client = this.clients.newClient(watchdog);
		StringRedisTemplate redisTemplate = this.clients.newTemplate();
		LockHandle handle = client.acquire(LockTestClients.uniqueName(), Duration.ofSeconds(5), null);
		AtomicLong toldAt = new AtomicLong();
		CompletableFuture<LeaseLostEvent> lost = handle.leaseLost().thenApply((event) -> {
			toldAt.set(System.nanoTime());
			return event;
		}).toCompletableFuture();
		LockInspector.of(client).orElseThrow().renewNow();
		long readAt = System.nanoTime();
		Long remaining = redisTemplate.getExpire("lock:{" + handle.name() + "}", TimeUnit.MILLISECONDS);
		assertThat(remaining).isPositive();
		// with nothing renewing it while Redis stands still, this is when the lease ends
		long leaseEnds = readAt + remaining * 1_000_000;
		this.harness.withRedisStalled(() -> assertThat(lost).succeedsWithin(TIMEOUT)
			.satisfies((event) -> assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.CLIENT_CLOCK)));
		long ahead = (leaseEnds - toldAt.get()) / 1_000_000;
		System.out.printf("leaseLost() told %d ms before the stalled lease could end (watchdog 6 s)%n", ahead);
		assertThat(ahead).as("ms between the loss told and the lease's end").isPositive();
	}

}
