package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locks on a three-master Redis Cluster: every script touches one slot (no CROSSSLOT),
 * names spread over all nodes, waiting wakes across nodes, renewal batches per slot,
 * tokens increase.
 */
class RedisClusterTests {

	private static RedisCluster cluster;

	private final LockTestClients clients = LockTestClients
		.on(() -> new RedisClusterConfiguration(cluster.nodeAddresses()), Duration.ofSeconds(2));

	@BeforeAll
	static void startCluster() {
		cluster = RedisCluster.start(3);
	}

	@AfterAll
	static void stopCluster() {
		cluster.close();
	}

	@AfterEach
	void closeClients() {
		this.clients.close();
	}

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
	void aWaiterIsWokenByAReleaseFromAnotherClient() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient(Duration.ofSeconds(30)).getLock(name);
		holder.lock(Duration.ofSeconds(30));
		RedisLockClient other = this.clients.newClient(Duration.ofSeconds(30));
		assertThat(LockTestClients.handOffTime(holder, other)).isLessThan(Duration.ofSeconds(1));
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
		await().pollInSameThread()
			.during(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(3))
			.atMost(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(5))
			.until(() -> locks.stream().allMatch(RedisLock::isHeldByCurrentThread));
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
		await().pollInSameThread()
			.during(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(3))
			.atMost(LockTestClients.TEST_WATCHDOG_TIMEOUT.multipliedBy(5))
			.until(() -> held.stream().allMatch((lock) -> lock.getHoldCount() == 1));
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

	@Test
	void twoClientsNeverOverlapOnOneName() throws Exception {
		String name = LockTestClients.uniqueName();
		String counter = "counter:{" + name + "}";
		List<CompletableFuture<Integer>> work = new ArrayList<>();
		for (int c = 0; c < 2; c++) {
			RedisLockClient client = this.clients.newClient(Duration.ofSeconds(30));
			StringRedisTemplate redis = this.clients.newTemplate();
			for (int t = 0; t < 3; t++) {
				work.add(CompletableFuture.supplyAsync(
						() -> MutualExclusionTests.incrementUnderLock(client.getLock(name), redis, counter, 30),
						TestThreads.perTask()));
			}
		}
		int total = 0;
		for (CompletableFuture<Integer> done : work) {
			total += done.get(60, TimeUnit.SECONDS);
		}
		StringRedisTemplate redis = this.clients.newTemplate();
		assertThat(redis.opsForValue().get(counter)).isEqualTo(Integer.toString(total));
	}

}
