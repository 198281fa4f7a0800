package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisClusterExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks and semaphores on a three-master Redis Cluster: every script touches one slot (no
 * CROSSSLOT), names spread over all nodes, waiting wakes across nodes, renewal batches
 * per slot, tokens increase. What every kind keeps on one name (exclusion across clients,
 * a waiter woken by a release, ...) {@link ClusterLockKindContractTests} checks.
 */
class RedisClusterTests {

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3);

	@RegisterExtension
	final LockTestClients clients = LockTestClients.on(redis::configuration, Duration.ofSeconds(2));

	@Test
	void locksSpreadOverAllNodesWorkWithoutCrossSlotErrors() {
		RedisLockClient client = this.clients.newClient(Duration.ofSeconds(30));
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; i < 60; i++) {
			RedisLock lock = client.getLock("cluster-" + i);
			slots.add(ClusterSlotHashUtil.calculateSlot("lock:{cluster-" + i + "}"));
			lock.lock();
			assertThat(lock.fencingToken()).isPositive();
			lock.lock();
			assertThat(lock.getHoldCount()).isEqualTo(2);
			lock.unlock();
			lock.unlock();
			assertThat(lock.isLocked()).isFalse();
		}
		assertThat(slots).anyMatch((slot) -> slot < 5461)
			.anyMatch((slot) -> slot >= 5461 && slot < 10923)
			.anyMatch((slot) -> slot >= 10923);
	}

	@Test
	void watchdogRenewsLocksInManySlotsAndTokensIncrease() {
		RedisLockClient client = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		List<RedisLock> locks = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			RedisLock lock = client.getLock(LockTestClients.uniqueName());
			lock.lock();
			locks.add(lock);
		}
		staysTrueForThreeWatchdogTimeouts(() -> locks.stream().allMatch(RedisLock::isHeldByCurrentThread));
		long previous = 0;
		RedisLock reused = locks.get(0);
		for (RedisLock lock : locks) {
			lock.unlock();
		}
		for (int i = 0; i < 5; i++) {
			reused.lock();
			assertThat(reused.fencingToken()).isGreaterThan(previous);
			previous = reused.fencingToken();
			reused.unlock();
		}
		assertThat(LockTestClients.inspector(client).watchdogCount()).isZero();
	}

	@Test
	void readWriteAndFairLocksInManySlotsAreRenewedBesideExclusiveOnesAndWakeWaitersAcrossNodes() throws Exception {
		RedisLockClient client = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		List<RedisLock> held = new ArrayList<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; i < 40; i++) {
			String name = LockTestClients.uniqueName();
			slots.add(ClusterSlotHashUtil.calculateSlot("lock:{" + name + "}:rw"));
			RedisLock lock = switch (i % 4) {
				case 0 -> client.getReadWriteLock(name).readLock();
				case 1 -> client.getReadWriteLock(name).writeLock();
				case 2 -> client.getFairLock(name);
				default -> client.getLock(name);
			};
			lock.lock();
			held.add(lock);
		}
		assertThat(slots).anyMatch((slot) -> slot < 5461)
			.anyMatch((slot) -> slot >= 5461 && slot < 10923)
			.anyMatch((slot) -> slot >= 10923);
		// renewed past three watchdog timeouts, read holds (two keys each) beside the
		// rest
		staysTrueForThreeWatchdogTimeouts(() -> held.stream().allMatch((lock) -> lock.getHoldCount() == 1));
		RedisLock read = held.get(0);
		RedisLockClient other = this.clients.newClient(Duration.ofSeconds(30));
		CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
			RedisLock write = other.getReadWriteLock(read.getName()).writeLock();
			try {
				boolean acquired = write.tryLock(20, TimeUnit.SECONDS);
				write.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(other).waitingCount() == 1);
		RedisLock fair = held.get(2);
		CompletableFuture<Boolean> fairWaiter = CompletableFuture.supplyAsync(() -> {
			RedisLock waiting = other.getFairLock(fair.getName());
			try {
				boolean acquired = waiting.tryLock(20, TimeUnit.SECONDS);
				waiting.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(other).waitingCount() == 2);
		held.forEach(RedisLock::unlock);
		assertThat(writer.get(20, TimeUnit.SECONDS)).isTrue();
		assertThat(fairWaiter.get(20, TimeUnit.SECONDS)).isTrue();
		assertThat(LockTestClients.inspector(client).watchdogCount()).isZero();
	}

	/**
	 * A semaphore's scripts touch its sorted set and its slot's fencing counter, one
	 * slot; its permits are renewed by the watchdog beside other kinds' holds of the same
	 * slot batch, and a permit freed on one node wakes a waiter of another client.
	 */
	@Test
	void semaphoresInManySlotsAreRenewedKeepTheirLimitAndWakeWaitersAcrossNodes() throws Exception {
		RedisLockClient client = this.clients.newClient(LockTestClients.TEST_WATCHDOG_TIMEOUT);
		RedisLockClient other = this.clients.newClient(Duration.ofSeconds(30));
		List<RedisSemaphore> semaphores = new ArrayList<>();
		List<LockHandle> permits = new ArrayList<>();
		Set<Integer> slots = new HashSet<>();
		for (int i = 0; i < 30; i++) {
			String name = LockTestClients.uniqueName();
			slots.add(ClusterSlotHashUtil.calculateSlot("lock:{" + name + "}:sem"));
			RedisSemaphore semaphore = client.getSemaphore(name, 2);
			semaphores.add(semaphore);
			permits.add(semaphore.acquire(Duration.ZERO, null));
			permits.add(semaphore.acquire(Duration.ZERO, null));
			// an exclusive lock in some of the same slots' renewal batches
			if (i % 3 == 0) {
				client.getLock(name).lock();
			}
		}
		assertThat(slots).anyMatch((slot) -> slot < 5461)
			.anyMatch((slot) -> slot >= 5461 && slot < 10923)
			.anyMatch((slot) -> slot >= 10923);
		staysTrueForThreeWatchdogTimeouts(() -> permits.stream().allMatch(LockHandle::isHeld));
		assertThat(semaphores).allSatisfy((semaphore) -> {
			assertThat(semaphore.availablePermits()).as(semaphore.getName()).isZero();
			assertThat(other.getSemaphore(semaphore.getName(), 2).tryAcquire(Duration.ZERO, null)).isEmpty();
		});
		permits.forEach(LockHandle::release);
		assertThat(semaphores).allSatisfy((semaphore) -> assertThat(semaphore.availablePermits()).isEqualTo(2));
		// Held again with 60 s leases, by a third client, and a waiter of another client
		// on each, on every node: a waiter that missed the release message would sleep
		// until the earliest lease end, long after the 10 s each is given here.
		RedisLockClient holder = this.clients.newClient(Duration.ofSeconds(30));
		List<LockHandle> held = new ArrayList<>();
		for (RedisSemaphore semaphore : semaphores) {
			held.add(holder.getSemaphore(semaphore.getName(), 2).acquire(Duration.ZERO, Duration.ofSeconds(60)));
			held.add(holder.getSemaphore(semaphore.getName(), 2).acquire(Duration.ZERO, Duration.ofSeconds(60)));
		}
		List<CompletableFuture<LockHandle>> waiters = new ArrayList<>();
		for (RedisSemaphore semaphore : semaphores) {
			waiters.add(other.getSemaphore(semaphore.getName(), 2).acquireAsync(Duration.ofSeconds(30), null));
		}
		await().atMost(Duration.ofSeconds(10))
			.until(() -> LockTestClients.inspector(other).waitingCount() == semaphores.size());
		for (int i = 0; i < semaphores.size(); i++) {
			long before = held.get(2 * i + 1).fencingToken();
			held.get(2 * i).release();
			LockHandle granted = waiters.get(i).get(10, TimeUnit.SECONDS);
			assertThat(granted.fencingToken()).isGreaterThan(before);
			assertThat(semaphores.get(i).availablePermits()).isZero();
			granted.release();
			held.get(2 * i + 1).release();
			assertThat(semaphores.get(i).availablePermits()).isEqualTo(2);
		}
		for (int i = 0; i < semaphores.size(); i += 3) {
			client.getLock(semaphores.get(i).getName()).unlock();
		}
		assertThat(LockTestClients.inspector(client).watchdogCount()).isZero();
		assertThat(LockTestClients.inspector(other).waitingCount()).isZero();
	}

	// held past three watchdog timeouts: renewed, not merely within the first lease
	private static void staysTrueForThreeWatchdogTimeouts(Callable<Boolean> held) {
		await().pollInSameThread()
			.during(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(3))
			.atMost(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(5))
			.until(held);
	}

}
