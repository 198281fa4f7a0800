package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code unlock(holdAtLeast)} and {@code release(holdAtLeast)}, of exclusive and fair
 * locks (and, for the minimum on Redis' clock, of the other kinds; the read/write lock's
 * own cases are in {@link ReadWriteLockHoldAtLeastTests}): a lock released sooner than
 * that after its acquisition stays taken, for nobody (not even its former owner), until
 * the minimum has passed; a lock held longer is freed at once; a lock its caller no
 * longer holds is never extended. The minimum counts on Redis' clock from the grant, not
 * from when the grant's reply reached the client.
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

	/**
	 * Through a proxy that delays each way by 150 ms, the client learns of the grant 150
	 * ms after Redis made it, and its release reaches Redis 150 ms after it was sent:
	 * counted by the client, the lock would stay taken 300 ms past the minimum. The keep
	 * ends on Redis' clock, at the grant (its fencing token, Redis' time in microseconds)
	 * plus the minimum.
	 */
	@ParameterizedTest
	@EnumSource(KeptKind.class)
	void theMinimumEndsOnRedisClockCountedFromTheGrantNotFromTheReplyThroughASlowNetwork(KeptKind kind) {
		String name = LockTestClients.uniqueName();
		FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port());
		RedisLockClient client = this.clients.through(proxy, TestTimeouts.COMMAND_TIMEOUT, (builder) -> {
		});
		try {
			proxy.latency(Duration.ofMillis(150));
			LockHandle handle = kind.acquire(client, name);
			// long enough that the keep is still there when read, whatever the machine's
			// load: the release's round trip alone takes 300 ms here
			Duration minimum = Duration.ofSeconds(5);
			handle.release(minimum);
			long endsAtMillis = kind.keptUntilMillis(name);
			long grantMillis = handle.fencingToken() / 1000;
			assertThat(endsAtMillis - grantMillis).as("kept until, after the grant (ms)")
				.isBetween(minimum.toMillis(), minimum.toMillis() + 2);
		}
		finally {
			client.close();
			proxy.close();
		}
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
	void aShortHoldOfAFairLockStaysTakenForNobodyThenGoesToTheWaiterInTurn() throws Exception {
		// counted from the grant, and long enough that the waiter has queued before it
		// ends, on a loaded machine too (the minimum would otherwise be over at the
		// release)
		Duration minimum = Duration.ofSeconds(2);
		String name = LockTestClients.uniqueName();
		RedisFairLock lock = this.clients.newClient().getFairLock(name);
		LockHandle handle = lock.tryAcquire(Duration.ZERO, null).orElseThrow();
		long acquired = System.nanoTime();
		CompletableFuture<LockHandle> waiter = this.clients.newClient()
			.getFairLock(name)
			.acquireAsync(Duration.ofSeconds(30), null);
		await().atMost(Duration.ofSeconds(5))
			.until(() -> "1".equals(redis.command("ZCARD", "lock:{" + name + "}:fair:queue")));
		handle.release(minimum);
		assertThat(Duration.ofNanos(System.nanoTime() - acquired)).as("released before the minimum ended")
			.isLessThan(minimum);
		assertThat(redis.command("HGET", "lock:{" + name + "}:fair", "hold-at-least")).isEqualTo("1");
		assertThat(lock.isLocked()).isTrue();
		assertThat(lock.tryLock()).as("the former owner cannot take it again").isFalse();
		LockHandle next = waiter.get(10, TimeUnit.SECONDS);
		long taken = System.nanoTime();
		// the waiter in turn sleeps until the kept lock expires (no release names it),
		// not
		// until its next heartbeat (every 2 s), which may come up to 2 s later
		assertThat(Duration.ofNanos(taken - acquired)).isBetween(minimum.minusMillis(50), minimum.plusMillis(1000));
		next.release();
		assertThat(lock.isLocked()).isFalse();
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

	enum KeptKind {

		EXCLUSIVE {

			@Override
			LockHandle acquire(RedisLockClient client, String name) {
				return client.acquire(name, Duration.ZERO, null);
			}

			@Override
			long keptUntilMillis(String name) {
				return Long.parseLong(redis.command("PEXPIRETIME", "lock:{" + name + "}"));
			}

		},

		FAIR {

			@Override
			LockHandle acquire(RedisLockClient client, String name) {
				return client.getFairLock(name).tryAcquire(Duration.ZERO, null).orElseThrow();
			}

			@Override
			long keptUntilMillis(String name) {
				return Long.parseLong(redis.command("PEXPIRETIME", "lock:{" + name + "}:fair"));
			}

		},

		// the write of a read/write lock keeps its end in a field of the hash, in
		// microseconds
		WRITE {

			@Override
			LockHandle acquire(RedisLockClient client, String name) {
				return client.getReadWriteLock(name).tryAcquireWrite(Duration.ZERO, null).orElseThrow();
			}

			@Override
			long keptUntilMillis(String name) {
				return Long.parseLong(redis.command("HGET", "lock:{" + name + "}:rw", "kept-write")) / 1000;
			}

		},

		SEMAPHORE {

			@Override
			LockHandle acquire(RedisLockClient client, String name) {
				return client.getSemaphore(name, 2).acquire(Duration.ZERO, null);
			}

			// the permit is kept under a member of its own, scored with its end
			@Override
			long keptUntilMillis(String name) {
				List<String> members = List
					.of(redis.command("ZRANGE", "lock:{" + name + "}:sem", "0", "-1", "WITHSCORES").split("\\s+"));
				int kept = members.indexOf(members.stream()
					.filter((member) -> member.startsWith("kept:"))
					.findFirst()
					.orElseThrow(() -> new AssertionError("no kept permit in " + members)));
				return Long.parseLong(members.get(kept + 1));
			}

		};

		abstract LockHandle acquire(RedisLockClient client, String name);

		abstract long keptUntilMillis(String name);

	}

}
