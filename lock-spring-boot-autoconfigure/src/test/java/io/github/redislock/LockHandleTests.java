package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * Locks owned by a {@link LockHandle}: released from any thread, never re-entered,
 * renewed by the watchdog, extended to an exact lease, and let go when abandoned.
 */
class LockHandleTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private static final Duration WATCHDOG = LockTestClients.TEST_WATCHDOG_TIMEOUT;

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final List<LeaseLostEvent> leaseLost = new CopyOnWriteArrayList<>();

	private RedisLockClient client;

	private StringRedisTemplate redisTemplate;

	private String name;

	@BeforeEach
	void createClient() {
		this.client = this.clients.newClient((builder) -> builder.leaseLostListener(this.leaseLost::add));
		this.redisTemplate = this.clients.newTemplate();
		this.name = LockTestClients.uniqueName();
	}

	@Test
	void releaseFromAnotherThreadFreesTheLockAndWakesAWaiterOfAnotherClient() throws Exception {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null);
		RedisLockClient other = this.clients.newClient();
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			try (LockHandle next = other.acquire(this.name, Duration.ofSeconds(20), Duration.ofSeconds(5))) {
				return next.fencingToken();
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(other).waitingCount() == 1);
		Thread releaser = new Thread(handle::release, "releaser");
		releaser.start();
		releaser.join(5_000);
		// a release message woke it: its 20 s wait and the watchdog lease are far off
		assertThat(waiter.get(5, TimeUnit.SECONDS)).isGreaterThan(handle.fencingToken());
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isZero();
		assertThat(this.leaseLost).isEmpty();
	}

	@Test
	void aHandleNeverReentersNorSharesWithItsThread() {
		try (LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null)) {
			assertThat(this.client.tryAcquire(this.name, Duration.ZERO, null)).isEmpty();
			RedisLock lock = this.client.getLock(this.name);
			assertThat(lock.tryLock()).isFalse();
			assertThat(lock.isHeldByCurrentThread()).isFalse();
			assertThat(handle.isHeld()).isTrue();
		}
		RedisLock lock = this.client.getLock(this.name);
		assertThat(lock.tryLock()).isTrue();
		assertThat(this.client.tryAcquire(this.name, Duration.ZERO, null)).isEmpty();
		lock.unlock();
	}

	@Test
	void releasingTwiceThrowsAndClosingAfterAReleaseDoesNothing() {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, Duration.ofSeconds(5));
		assertThat(handle.name()).isEqualTo(this.name);
		handle.release();
		assertThat(handle.isHeld()).isFalse();
		assertThat(handle.remainingLease()).isZero();
		assertThat(this.redisTemplate.hasKey("lock:{" + this.name + "}")).isFalse();
		assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(handle::release)
			.withMessageContaining("'" + this.name + "'")
			.withMessageContaining("released already");
		handle.close();
		assertThat(handle.extend(Duration.ofSeconds(5))).isFalse();
	}

	@Test
	void releaseAfterTheLeaseRanOutThrowsLeaseExpiredAndReportsTheLoss() {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, Duration.ofMillis(100));
		await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(handle::release)
			.withMessageContaining("lease of 100ms ran out")
			.withMessageContaining("acquired by a handle");
		assertThat(this.leaseLost).singleElement()
			.satisfies((event) -> assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.UNLOCK));
		// closing a handle whose release failed has nothing left to do
		handle.close();
	}

	@Test
	void theWatchdogRenewsAHandleUntilItIsReleased() {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null);
		assertThat(handle.remainingLease()).isPositive().isLessThanOrEqualTo(WATCHDOG);
		await().during(WATCHDOG.multipliedBy(4)).atMost(WATCHDOG.multipliedBy(6)).until(handle::isHeld);
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isOne();
		handle.release();
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isZero();
		assertThat(this.redisTemplate.hasKey("lock:{" + this.name + "}")).isFalse();
	}

	@Test
	void extendSetsTheRemainingLeaseExactlyShorterOrLongerAndEndsWatchdogRenewal() {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null);
		assertThat(handle.extend(Duration.ofSeconds(30))).isTrue();
		assertThat(handle.remainingLease()).isGreaterThan(Duration.ofSeconds(29));
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isZero();
		assertThat(handle.extend(Duration.ofSeconds(10))).isTrue();
		assertThat(handle.remainingLease()).isBetween(Duration.ofSeconds(9), Duration.ofSeconds(10));
		LockTestClients.inspector(this.client).renewNow();
		assertThat(handle.remainingLease()).isLessThanOrEqualTo(Duration.ofSeconds(10));
		assertThatIllegalArgumentException().isThrownBy(() -> handle.extend(Duration.ZERO))
			.withMessageContaining("leaseTime of lock '" + this.name + "' must be at least 1ms");
		handle.release();
	}

	@Test
	void extendIsRefusedOnceTheLockWasLost() {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null);
		assertThat(this.client.getLock(this.name).forceUnlock()).isTrue();
		assertThat(handle.extend(Duration.ofSeconds(10))).isFalse();
		assertThat(handle.isHeld()).isFalse();
		assertThat(handle.remainingLease()).isZero();
		assertThat(this.redisTemplate.hasKey("lock:{" + this.name + "}")).as("extend created no lock").isFalse();
		assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(handle::release);
	}

	@Test
	void acquireThrowsWhenAnotherHolderKeepsTheLockForTheWholeWait() {
		RedisLock holder = this.clients.newClient().getLock(this.name);
		holder.lock();
		assertThatExceptionOfType(LockNotAcquiredException.class)
			.isThrownBy(() -> this.client.acquire(this.name, Duration.ofMillis(200), null))
			.withMessage("Could not acquire lock '" + this.name + "' within 200ms: another holder kept it");
		assertThat(this.client.tryAcquire(this.name, Duration.ofMillis(50), null)).isEmpty();
		holder.unlock();
		Optional<LockHandle> handle = this.client.tryAcquire(this.name, Duration.ofMillis(50), null);
		assertThat(handle).isPresent();
		handle.get().release();
		assertThat(LockTestClients.inspector(this.client).waitingCount()).isZero();
	}

	@Test
	void badArgumentsAreRefusedNamingTheLock() {
		assertThatIllegalArgumentException().isThrownBy(() -> this.client.acquire(" ", Duration.ZERO, null))
			.withMessageContaining("Lock name ' ' must not be blank");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.client.acquire(this.name, Duration.ofSeconds(-1), null))
			.withMessageContaining("waitTime of lock '" + this.name + "' must not be negative");
		assertThatIllegalArgumentException()
			.isThrownBy(() -> this.client.acquire(this.name, Duration.ZERO, Duration.ZERO))
			.withMessageContaining("leaseTime of lock '" + this.name + "' must be at least 1ms");
		assertThat(this.redisTemplate.hasKey("lock:{" + this.name + "}")).isFalse();
	}

	@Test
	void anInterruptEndsTheWaitWithLockNotAcquiredAndKeepsTheInterruptStatus() throws Exception {
		RedisLock holder = this.clients.newClient().getLock(this.name);
		holder.lock();
		CompletableFuture<Throwable> failure = new CompletableFuture<>();
		Thread waiter = new Thread(() -> {
			try {
				this.client.acquire(this.name, Duration.ofSeconds(30), null);
				failure.complete(null);
			}
			catch (LockNotAcquiredException ex) {
				failure.complete(Thread.currentThread().isInterrupted() ? ex : new AssertionError("status lost"));
			}
		});
		waiter.start();
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(this.client).waitingCount() == 1);
		waiter.interrupt();
		assertThat(failure.get(5, TimeUnit.SECONDS)).isInstanceOf(LockNotAcquiredException.class)
			.hasCauseInstanceOf(InterruptedException.class);
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
		holder.unlock();
	}

	// an application shutting down closes its client with a release still to come: that
	// is not an outage, and must not be logged as one
	@Test
	@ExtendWith(OutputCaptureExtension.class)
	void aReleaseAfterTheClientClosedFailsSayingSoAndTellsNoOutage(CapturedOutput output) {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null);
		this.client.close();
		assertThatExceptionOfType(RedisLockException.class).isThrownBy(handle::release)
			.withMessageContaining("the lock client is closed");
		assertThat(handle.releaseAsync()).failsWithin(Duration.ofSeconds(10));
		// a call on its way as the client closes
		RedisLockClient other = this.clients.newClient();
		List<CompletableFuture<Void>> calls = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			calls.add(other.withLockAsync(this.name + i, Duration.ofSeconds(3), null,
					() -> CompletableFuture.completedFuture(null)));
		}
		other.close();
		for (CompletableFuture<Void> call : calls) {
			await().until(call::isDone);
		}
		assertThat(output).doesNotContain("cannot be reached");
	}

	@Test
	void anUnreachableHandleIsReportedAbandonedAndItsLockExpires() {
		acquireAndForget();
		await().atMost(Duration.ofSeconds(20)).until(() -> {
			System.gc();
			return !this.leaseLost.isEmpty();
		});
		assertThat(this.leaseLost).singleElement().satisfies((event) -> {
			assertThat(event.lockName()).isEqualTo(this.name);
			assertThat(event.detectedBy()).isEqualTo(LeaseLostEvent.DetectedBy.ABANDONED);
			assertThat(event.watchdog()).isTrue();
		});
		assertThat(LockTestClients.inspector(this.client).heldCount()).isZero();
		assertThat(LockTestClients.inspector(this.client).watchdogCount()).isZero();
		// no longer renewed: gone within one watchdog lease
		await().atMost(WATCHDOG.multipliedBy(3)).until(() -> !this.redisTemplate.hasKey("lock:{" + this.name + "}"));
	}

	private void acquireAndForget() {
		LockHandle handle = this.client.acquire(this.name, Duration.ZERO, null);
		assertThat(handle.isHeld()).isTrue();
	}

}
