package io.github.redislock;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code unlock(holdAtLeast)} and {@code release(holdAtLeast)}: a lock released sooner
 * than that after its acquisition stays taken, for nobody (not even its former owner),
 * until the minimum has passed; a lock held longer is freed at once; a lock its caller no
 * longer holds is never extended.
 */
class HoldAtLeastTests {

	private static final Duration MINIMUM = Duration.ofMillis(800);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void aShortHoldStaysTakenForNobodyUntilTheMinimumHasPassed() {
		String name = LockTestClients.uniqueName();
		RedisLock lock = this.clients.newClient().getLock(name);
		RedisLock other = this.clients.newClient().getLock(name);
		long start = System.nanoTime();
		lock.lock();
		lock.unlock(MINIMUM);
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.tryLock()).as("the former owner cannot re-enter it").isFalse();
		assertThat(other.tryLock()).isFalse();
		assertThat(redis.command("HGET", "lock:{" + name + "}", "hold-at-least")).isEqualTo("1");
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(other::tryLock);
		assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(MINIMUM.minusMillis(50));
		other.unlock();
	}

	@Test
	void aWaiterIsToldAndGetsTheLockOnceTheMinimumHasPassed() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients.newClient();
		LockHandle handle = client.acquire(name, Duration.ZERO, null);
		long acquired = System.nanoTime();
		CompletableFuture<LockHandle> waiter = this.clients.newClient()
			.acquireAsync(name, Duration.ofSeconds(30), null);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> redis.command("PUBSUB", "NUMSUB", "lock:{" + name + "}:released").endsWith("1"));
		handle.release(MINIMUM);
		LockHandle next = waiter.get(10, TimeUnit.SECONDS);
		// woken by the release message, then asleep until the kept lock expired, not
		// until the end of the watchdog lease the holder had (30 s)
		assertThat(Duration.ofNanos(System.nanoTime() - acquired)).isBetween(MINIMUM.minusMillis(50),
				Duration.ofSeconds(5));
		next.release();
	}

	@Test
	void aHoldLongerThanTheMinimumIsReleasedAtOnce() {
		String name = LockTestClients.uniqueName();
		RedisLock lock = this.clients.newClient().getLock(name);
		lock.lock();
		// counted from the acquisition's reply, as the client counts the hold: a new
		// client's first call also connects, which can take longer than 20 ms
		long start = System.nanoTime();
		await().pollInterval(Duration.ofMillis(1))
			.until(() -> System.nanoTime() - start > TimeUnit.MILLISECONDS.toNanos(20));
		lock.unlock(Duration.ofMillis(5));
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void onlyTheLastReleaseOfAReentrantHoldKeepsTheLock() {
		String name = LockTestClients.uniqueName();
		RedisLock lock = this.clients.newClient().getLock(name);
		lock.lock();
		lock.lock();
		lock.unlock(MINIMUM);
		assertThat(lock.getHoldCount()).isOne();
		lock.unlock(MINIMUM);
		assertThat(lock.getHoldCount()).isZero();
		assertThat(lock.isLocked()).isTrue();
		await().atMost(Duration.ofSeconds(5)).until(() -> !lock.isLocked());
	}

	@Test
	void aLockSomeoneElseHoldsIsNeverExtended() {
		String name = LockTestClients.uniqueName();
		RedisLock lost = this.clients.newClient().getLock(name);
		RedisLock other = this.clients.newClient().getLock(name);
		lost.lock(Duration.ofMillis(100));
		await().pollInSameThread().atMost(Duration.ofSeconds(5)).until(other::tryLock);
		assertThat(redis.command("PEXPIRE", "lock:{" + name + "}", "300")).isEqualTo("1");
		assertThatThrownBy(() -> lost.unlock(Duration.ofSeconds(30))).isInstanceOf(LeaseExpiredException.class);
		assertThat(Long.parseLong(redis.command("PTTL", "lock:{" + name + "}"))).isBetween(1L, 300L);
		assertThat(other.isHeldByCurrentThread()).isTrue();
		other.unlock();
	}

	@Test
	void aNegativeMinimumIsRefusedNamingTheLock() {
		String name = LockTestClients.uniqueName();
		RedisLock lock = this.clients.newClient().getLock(name);
		lock.lock();
		assertThatIllegalArgumentException().isThrownBy(() -> lock.unlock(Duration.ofMillis(-1)))
			.withMessage("holdAtLeast of lock '" + name + "' must not be negative, was PT-0.001S");
		lock.unlock();
	}

}
