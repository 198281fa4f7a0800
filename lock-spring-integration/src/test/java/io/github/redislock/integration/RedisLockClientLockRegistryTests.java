package io.github.redislock.integration;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.util.CheckedRunnable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.awaitility.Awaitility.await;

/**
 * The registry against a real Redis, through the cases Spring Integration's own
 * {@code RedisLockRegistryTests} cover that apply to it: locking and re-entry, a TTL per
 * lock, two registries (two clients, as two applications have), renewal, the unlock of an
 * interrupted thread, {@code executeLocked} and {@code expireUnusedOlderThan}. Timings
 * are generous: a wait in an assertion is what must outlast a lease, never a guess at how
 * long something takes.
 */
class RedisLockClientLockRegistryTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private LettuceConnectionFactory connection;

	// two clients: two applications
	private RedisLockClient client;

	private RedisLockClient otherClient;

	private RedisLockClientLockRegistry registry;

	private RedisLockClientLockRegistry otherRegistry;

	private ExecutorService threads;

	private String key;

	@BeforeEach
	void setUp(TestInfo test) {
		this.connection = redis.newConnectionFactory(Duration.ofSeconds(10));
		this.client = RedisLockClient.builder(this.connection).commandTimeout(Duration.ofSeconds(10)).build();
		this.otherClient = RedisLockClient.builder(this.connection).commandTimeout(Duration.ofSeconds(10)).build();
		this.registry = new RedisLockClientLockRegistry(this.client);
		this.otherRegistry = new RedisLockClientLockRegistry(this.otherClient);
		this.threads = Executors.newCachedThreadPool();
		this.key = test.getTestMethod().orElseThrow().getName();
	}

	@AfterEach
	void tearDown() throws InterruptedException {
		this.threads.shutdownNow();
		assertThat(this.threads.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
		this.client.close();
		this.otherClient.close();
		this.connection.destroy();
	}

	@Test
	void aKeyIsTheLockOfThePrefixedNameAndTheObjectIsCachedUntilExpired() {
		DistributedLock lock = this.registry.obtain(this.key);
		for (int i = 0; i < 10; i++) {
			lock.lock();
			try {
				assertThat(this.registry.obtain(this.key)).isSameAs(lock);
				assertThat(redisLock("integration:" + this.key).isLocked()).isTrue();
			}
			finally {
				lock.unlock();
			}
		}
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
		this.registry.expireUnusedOlderThan(-1000);
		assertThat(this.registry.obtain(this.key)).isNotSameAs(lock);
	}

	@Test
	void theNamePrefixIsConfigurableAndMayBeEmpty() {
		RedisLockClientLockRegistry orders = new RedisLockClientLockRegistry(this.client, "orders:");
		RedisLockClientLockRegistry bare = new RedisLockClientLockRegistry(this.client, "");
		orders.obtain(this.key).lock();
		bare.obtain(this.key).lock();
		assertThat(redisLock("orders:" + this.key).isLocked()).isTrue();
		assertThat(redisLock(this.key).isLocked()).isTrue();
		orders.obtain(this.key).unlock();
		bare.obtain(this.key).unlock();
		assertThat(redisLock("orders:" + this.key).isLocked()).isFalse();
		assertThat(redisLock(this.key).isLocked()).isFalse();
	}

	@Test
	void aBlankOrNonStringKeyIsRefusedClearlyAndBracesOrLongKeysAreLocks() {
		assertThatIllegalArgumentException()
			.isThrownBy(() -> new RedisLockClientLockRegistry(this.client, "").obtain(" "))
			.withMessageContaining("Lock key ' '");
		assertThatIllegalArgumentException().isThrownBy(() -> this.registry.obtain(42));
		// keys RedisLockRegistry accepts that a Redis Cluster hash tag cannot hold as
		// they are: the client hashes them into the key
		for (String key : new String[] { "a{b}", "x".repeat(1100) }) {
			Lock lock = this.registry.obtain(key);
			assertThat(lock.tryLock()).isTrue();
			assertThat(redisLock("integration:" + key).isLocked()).isTrue();
			lock.unlock();
		}
	}

	@Test
	void aTtlPerLockIsAFixedLeaseThatOutlastsTheDefault() throws Exception {
		this.registry.setDefaultTtl(Duration.ofMillis(100));
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock(Duration.ofSeconds(30));
		try {
			assertThat(redisLock("integration:" + this.key).remainingLease()).isGreaterThan(Duration.ofSeconds(20));
			// waits well past the default TTL
			assertThat(this.otherRegistry.obtain(this.key).tryLock(1, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofSeconds(30))).isTrue();
		try {
			assertThat(redisLock("integration:" + this.key).remainingLease()).isGreaterThan(Duration.ofSeconds(20));
			assertThat(this.otherRegistry.obtain(this.key).tryLock(1, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void aFixedLeaseEndsTheHoldAndItsUnlockSaysSo() throws Exception {
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock(Duration.ofMillis(300));
		// the other application gets it once the lease has run out
		assertThat(this.otherRegistry.obtain(this.key).tryLock(30, TimeUnit.SECONDS)).isTrue();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
		this.otherRegistry.obtain(this.key).unlock();
	}

	@Test
	void theDefaultTtlIsAFixedLease() throws Exception {
		this.registry.setDefaultTtl(Duration.ofMillis(300));
		DistributedLock lock = this.registry.obtain(this.key);
		assertThat(lock.tryLock()).isTrue();
		assertThat(this.otherRegistry.obtain(this.key).tryLock()).isFalse();
		assertThat(this.otherRegistry.obtain(this.key).tryLock(30, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.tryLock()).isFalse();
		// LeaseExpiredException is one
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
		this.otherRegistry.obtain(this.key).unlock();
	}

	@Test
	void withoutATtlTheWatchdogKeepsTheLockForAsLongAsItIsHeld() {
		RedisLockClient shortWatchdog = RedisLockClient.builder(this.connection)
			.watchdogTimeout(Duration.ofSeconds(1))
			.commandTimeout(Duration.ofSeconds(10))
			.build();
		try {
			DistributedLock lock = new RedisLockClientLockRegistry(shortWatchdog).obtain(this.key);
			assertThat(lock.tryLock()).isTrue();
			// several watchdog leases long
			await().during(Duration.ofMillis(2500))
				.atMost(Duration.ofSeconds(20))
				.until(() -> !this.otherRegistry.obtain(this.key).tryLock());
			lock.unlock();
			assertThat(this.otherRegistry.obtain(this.key).tryLock()).isTrue();
			this.otherRegistry.obtain(this.key).unlock();
		}
		finally {
			shortWatchdog.close();
		}
	}

	@Test
	void locksAreReentrantForTheirThread() throws Exception {
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock();
		lock.lockInterruptibly();
		assertThat(lock.tryLock()).isTrue();
		assertThat(this.registry.obtain(this.key).tryLock(Duration.ZERO, Duration.ofSeconds(5))).isTrue();
		assertThat(onOtherThread(() -> lock.tryLock())).isFalse();
		for (int i = 0; i < 3; i++) {
			lock.unlock();
			assertThat(onOtherThread(() -> lock.tryLock())).isFalse();
		}
		lock.unlock();
		assertThat(onOtherThread(() -> {
			boolean acquired = lock.tryLock();
			lock.unlock();
			return acquired;
		})).isTrue();
	}

	@Test
	void twoKeysAreTwoLocks() throws Exception {
		Lock first = this.registry.obtain(this.key + "-1");
		Lock second = this.registry.obtain(this.key + "-2");
		first.lock();
		second.lock();
		assertThat(onOtherThread(() -> first.tryLock())).isFalse();
		assertThat(onOtherThread(() -> second.tryLock())).isFalse();
		first.unlock();
		assertThat(onOtherThread(() -> second.tryLock())).isFalse();
		second.unlock();
	}

	@Test
	void aSecondThreadWaitsForTheFirst() throws Exception {
		Lock lock = this.registry.obtain(this.key);
		lock.lock();
		CountDownLatch waiting = new CountDownLatch(1);
		AtomicBoolean acquired = new AtomicBoolean();
		CompletableFuture<Void> second = CompletableFuture.runAsync(() -> {
			waiting.countDown();
			try {
				lock.lockInterruptibly();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			acquired.set(true);
			lock.unlock();
		}, this.threads);
		assertThat(waiting.await(10, TimeUnit.SECONDS)).isTrue();
		assertThat(onOtherThread(() -> lock.tryLock())).isFalse();
		assertThat(acquired).isFalse();
		lock.unlock();
		second.get(20, TimeUnit.SECONDS);
		assertThat(acquired).isTrue();
	}

	@Test
	void twoRegistriesOfTwoClientsShareTheLock() throws Exception {
		Lock lock = this.registry.obtain(this.key);
		Lock other = this.otherRegistry.obtain(this.key);
		lock.lock();
		// also on the same thread: another client is another owner
		assertThat(other.tryLock()).isFalse();
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			try {
				boolean acquired = other.tryLock(20, TimeUnit.SECONDS);
				other.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, this.threads);
		lock.unlock();
		assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
		assertThat(lock.tryLock()).isTrue();
		lock.unlock();
	}

	@Test
	void twoRegistriesOfOneClientAreOneOwnerPerThread() throws Exception {
		RedisLockClientLockRegistry sameClient = new RedisLockClientLockRegistry(this.client);
		Lock lock = this.registry.obtain(this.key);
		lock.lock();
		// RedisLockRegistry would refuse this (another registry's lock); here it
		// re-enters
		assertThat(sameClient.obtain(this.key).tryLock()).isTrue();
		assertThat(onOtherThread(() -> sameClient.obtain(this.key).tryLock())).isFalse();
		sameClient.obtain(this.key).unlock();
		lock.unlock();
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
	}

	@Test
	void onlyTheHoldingThreadUnlocks() throws Exception {
		Lock lock = this.registry.obtain(this.key);
		lock.lockInterruptibly();
		AtomicReference<Throwable> failure = new AtomicReference<>();
		onOtherThread(() -> {
			try {
				lock.unlock();
			}
			catch (RuntimeException ex) {
				failure.set(ex);
			}
			return null;
		});
		assertThat(failure.get()).isInstanceOf(IllegalMonitorStateException.class);
		assertThat(redisLock("integration:" + this.key).isLocked()).isTrue();
		lock.unlock();
		this.registry.expireUnusedOlderThan(-1000);
		assertThat(this.registry.obtain(this.key)).isNotSameAs(lock);
	}

	@Test
	void aFailedAttemptLeavesTheHoldersLeaseAlone() throws Exception {
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock(Duration.ofSeconds(10));
		RedisLock observed = redisLock("integration:" + this.key);
		Duration before = observed.remainingLease();
		assertThat(onOtherThread(() -> this.registry.obtain(this.key).tryLock(Duration.ZERO, Duration.ofSeconds(60))))
			.isFalse();
		assertThat(this.otherRegistry.obtain(this.key).tryLock(Duration.ZERO, Duration.ofSeconds(60))).isFalse();
		assertThat(observed.remainingLease()).isLessThanOrEqualTo(before);
		lock.unlock();
	}

	@Test
	void aWaitIsInterruptibleAndLeavesNothingHeld() throws Exception {
		Lock lock = this.registry.obtain(this.key);
		lock.lock();
		CountDownLatch started = new CountDownLatch(1);
		AtomicReference<Thread> waiterThread = new AtomicReference<>();
		CompletableFuture<Throwable> waiter = CompletableFuture.supplyAsync(() -> {
			waiterThread.set(Thread.currentThread());
			started.countDown();
			try {
				lock.lockInterruptibly();
				return null;
			}
			catch (InterruptedException ex) {
				return ex;
			}
		}, this.threads);
		assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
		waiterThread.get().interrupt();
		assertThat(waiter.get(20, TimeUnit.SECONDS)).isInstanceOf(InterruptedException.class);
		lock.unlock();
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
	}

	@Test
	void renewLockWithoutADefaultTtlChecksTheHoldAndKeepsTheWatchdog() {
		DistributedLock lock = this.registry.obtain(this.key);
		assertThat(lock.tryLock()).isTrue();
		try {
			this.registry.renewLock(this.key);
			assertThat(redisLock("integration:" + this.key).isLocked()).isTrue();
			assertThat(lock.tryLock()).isTrue();
			lock.unlock();
		}
		finally {
			lock.unlock();
		}
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
	}

	// as RedisLockRegistry: the new TTL counts from the renewal, shorter or longer
	@Test
	void renewLockSetsTheLeaseToTheTtlFromNowShorterOrLonger() {
		DistributedLock lock = this.registry.obtain(this.key);
		assertThat(lock.tryLock()).isTrue();
		RedisLock redisLock = redisLock("integration:" + this.key);
		this.registry.renewLock(this.key, Duration.ofSeconds(60));
		assertThat(redisLock.remainingLease()).isBetween(Duration.ofSeconds(59), Duration.ofSeconds(60));
		this.registry.renewLock(this.key, Duration.ofSeconds(20));
		assertThat(redisLock.remainingLease()).isBetween(Duration.ofSeconds(19), Duration.ofSeconds(20));
		// the watchdog that held it before no longer renews it: another application gets
		// it once the short TTL is over, well before the watchdog timeout
		this.registry.renewLock(this.key, Duration.ofMillis(300));
		await().atMost(Duration.ofSeconds(5))
			.pollInSameThread()
			.until(() -> this.otherRegistry.obtain(this.key).tryLock());
		this.otherRegistry.obtain(this.key).unlock();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(lock::unlock);
	}

	@Test
	void renewLockWithoutATtlSetsTheDefaultTtlFromNow() {
		RedisLockClientLockRegistry withTtl = new RedisLockClientLockRegistry(this.client);
		withTtl.setDefaultTtl(Duration.ofSeconds(20));
		DistributedLock lock = withTtl.obtain(this.key);
		lock.lock(Duration.ofSeconds(60));
		try {
			withTtl.renewLock(this.key);
			assertThat(redisLock("integration:" + this.key).remainingLease()).isBetween(Duration.ofSeconds(19),
					Duration.ofSeconds(20));
		}
		finally {
			lock.unlock();
		}
	}

	@Test
	void renewLockOfALockTheThreadDoesNotHoldFails() throws Exception {
		this.registry.obtain(this.key);
		assertThatIllegalStateException().isThrownBy(() -> this.registry.renewLock(this.key))
			.withMessageContaining("does not hold");
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock();
		assertThat(onOtherThread(() -> {
			try {
				this.registry.renewLock(this.key, Duration.ofSeconds(5));
				return null;
			}
			catch (IllegalStateException ex) {
				return ex;
			}
		})).isInstanceOf(IllegalStateException.class);
		lock.unlock();
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
	}

	@Test
	void renewLockWithATtlOutlastsTheFirstLease() throws Exception {
		DistributedLock lock = this.registry.obtain(this.key);
		assertThat(lock.tryLock(Duration.ofSeconds(5), Duration.ofMillis(300))).isTrue();
		try {
			this.registry.renewLock(this.key, Duration.ofSeconds(30));
			assertThat(redisLock("integration:" + this.key).remainingLease()).isGreaterThan(Duration.ofSeconds(20));
			// waits well past the first lease
			assertThat(this.otherRegistry.obtain(this.key).tryLock(1, TimeUnit.SECONDS)).isFalse();
		}
		finally {
			lock.unlock();
		}
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
	}

	@Test
	void renewLockOfALostHoldFails() throws Exception {
		DistributedLock lock = this.registry.obtain(this.key);
		lock.lock(Duration.ofMillis(200));
		assertThat(this.otherRegistry.obtain(this.key).tryLock(30, TimeUnit.SECONDS)).isTrue();
		assertThatIllegalStateException().isThrownBy(() -> this.registry.renewLock(this.key, Duration.ofSeconds(5)));
		this.otherRegistry.obtain(this.key).unlock();
	}

	@Test
	void anInterruptedThreadsUnlockReleasesTheLockBeforeItReturns() throws Exception {
		Lock lock = this.registry.obtain(this.key);
		AtomicBoolean lockedAfterUnlock = new AtomicBoolean(true);
		AtomicBoolean stillInterrupted = new AtomicBoolean();
		onOtherThread(() -> {
			lock.lock();
			Thread.currentThread().interrupt();
			lock.unlock();
			stillInterrupted.set(Thread.interrupted());
			lockedAfterUnlock.set(redisLock("integration:" + this.key).isLocked());
			return null;
		});
		assertThat(lockedAfterUnlock).isFalse();
		assertThat(stillInterrupted).isTrue();
		assertThat(this.otherRegistry.obtain(this.key).tryLock()).isTrue();
		this.otherRegistry.obtain(this.key).unlock();
	}

	@Test
	void executeLockedRunsUnderTheLockAndReleasesIt() throws Exception {
		String result = this.registry.executeLocked(this.key, () -> {
			assertThat(this.otherRegistry.obtain(this.key).tryLock()).isFalse();
			return "done";
		});
		assertThat(result).isEqualTo("done");
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();

		CheckedRunnable<IllegalStateException> failing = () -> {
			throw new IllegalStateException("failed");
		};
		assertThatIllegalStateException().isThrownBy(() -> this.registry.executeLocked(this.key, failing));
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();

		Lock other = this.otherRegistry.obtain(this.key);
		other.lock();
		AtomicBoolean ran = new AtomicBoolean();
		assertThatExceptionOfType(TimeoutException.class)
			.isThrownBy(() -> this.registry.executeLocked(this.key, Duration.ofMillis(200), () -> ran.set(true)));
		assertThat(ran).isFalse();
		other.unlock();
		this.registry.executeLocked(this.key, Duration.ofSeconds(10), () -> ran.set(true));
		assertThat(ran).isTrue();
		assertThat(redisLock("integration:" + this.key).isLocked()).isFalse();
	}

	@Test
	void expireUnusedOlderThanKeepsHeldLocksAndDroppedObjectsStayTheSameLock() throws Exception {
		DistributedLock held = this.registry.obtain(this.key + "-held");
		DistributedLock free = this.registry.obtain(this.key + "-free");
		held.lock();
		this.registry.expireUnusedOlderThan(-1000);
		assertThat(this.registry.obtain(this.key + "-held")).isSameAs(held);
		assertThat(this.registry.obtain(this.key + "-free")).isNotSameAs(free);
		// a recent acquisition is not old enough
		free.lock();
		free.unlock();
		DistributedLock cached = this.registry.obtain(this.key + "-free");
		cached.lock();
		cached.unlock();
		this.registry.expireUnusedOlderThan(60_000);
		assertThat(this.registry.obtain(this.key + "-free")).isSameAs(cached);
		// the dropped object still locks the same lock as its replacement
		free.lock();
		assertThat(onOtherThread(() -> cached.tryLock())).isFalse();
		assertThat(cached.tryLock()).isTrue();
		cached.unlock();
		free.unlock();
		held.unlock();
		assertThat(redisLock("integration:" + this.key + "-free").isLocked()).isFalse();
	}

	@Test
	void theCacheDropsUnheldObjectsBeyondItsCapacity() {
		this.registry.setCacheCapacity(2);
		DistributedLock held = this.registry.obtain(this.key + "-0");
		held.lock();
		for (int i = 1; i < 10; i++) {
			this.registry.obtain(this.key + "-" + i);
		}
		assertThat(this.registry.obtain(this.key + "-0")).isSameAs(held);
		held.unlock();
	}

	@Test
	void conditionsAreNotSupported() {
		assertThatExceptionOfType(UnsupportedOperationException.class)
			.isThrownBy(() -> this.registry.obtain(this.key).newCondition());
	}

	private RedisLock redisLock(String name) {
		return this.otherClient.getLock(name);
	}

	private <T> T onOtherThread(CheckedSupplier<T> action) throws Exception {
		return CompletableFuture.supplyAsync(() -> {
			try {
				return action.get();
			}
			catch (Exception ex) {
				throw new IllegalStateException(ex);
			}
		}, this.threads).get(30, TimeUnit.SECONDS);
	}

	@FunctionalInterface
	interface CheckedSupplier<T> {

		T get() throws Exception;

	}

}
