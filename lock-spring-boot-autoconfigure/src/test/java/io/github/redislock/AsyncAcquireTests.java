package io.github.redislock;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Acquisitions no thread waits for: {@link RedisLockClient#acquireAsync} and
 * {@link RedisLockClient#withLockAsync}.
 */
class AsyncAcquireTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final ExecutorService releasers = Executors.newFixedThreadPool(4);

	@AfterEach
	void stopReleasers() {
		this.releasers.shutdownNow();
	}

	@Test
	void aThousandAsyncWaitersOnOneNameUseFewThreadsAndAllAcquireInTurn() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock();
		RedisLockClient client = this.clients.newClient();
		// the client's connections and its async thread are up before threads are counted
		client.acquireAsync(LockTestClients.uniqueName(), Duration.ZERO, null).join().release();
		int threadsBefore = ManagementFactory.getThreadMXBean().getThreadCount();
		AtomicInteger inside = new AtomicInteger();
		AtomicInteger overlaps = new AtomicInteger();
		AtomicInteger acquired = new AtomicInteger();
		List<CompletableFuture<Void>> waiters = new ArrayList<>();
		for (int i = 0; i < 1000; i++) {
			waiters.add(client.acquireAsync(name, Duration.ofSeconds(120), Duration.ofSeconds(30))
				.thenAcceptAsync((handle) -> {
					if (inside.incrementAndGet() != 1) {
						overlaps.incrementAndGet();
					}
					acquired.incrementAndGet();
					inside.decrementAndGet();
					handle.release();
				}, this.releasers));
		}
		await().atMost(Duration.ofSeconds(30)).until(() -> LockTestClients.inspector(client).waitingCount() == 1000);
		int extraThreads = ManagementFactory.getThreadMXBean().getThreadCount() - threadsBefore;
		System.out.println("[figures] 1,000 async waiters: " + extraThreads + " extra threads, "
				+ LockTestClients.inspector(client).subscribedCount() + " subscription");
		assertThat(extraThreads).as("threads started for 1,000 waiters").isLessThan(10);
		assertThat(LockTestClients.inspector(client).subscribedCount()).isOne();
		holder.unlock();
		CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
		assertThat(acquired).hasValue(1000);
		assertThat(overlaps).hasValue(0);
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void tenThousandAcquisitionsWithRandomCancellationsAndTimeoutsLeaveNothingBehind() throws Exception {
		RedisLockClient client = this.clients.newClient();
		List<String> names = new ArrayList<>();
		for (int i = 0; i < 20; i++) {
			names.add(LockTestClients.uniqueName());
		}
		Random random = new Random(42);
		Semaphore inFlight = new Semaphore(200);
		AtomicInteger acquired = new AtomicInteger();
		AtomicInteger timedOut = new AtomicInteger();
		AtomicInteger cancelled = new AtomicInteger();
		List<CompletableFuture<?>> all = new ArrayList<>();
		for (int i = 0; i < 10_000; i++) {
			inFlight.acquire();
			String name = names.get(random.nextInt(names.size()));
			Duration wait = Duration.ofMillis(random.nextInt(50));
			Duration lease = random.nextBoolean() ? null : Duration.ofSeconds(10);
			CompletableFuture<LockHandle> handle = client.acquireAsync(name, wait, lease);
			CompletableFuture<Void> done = handle.<Void>handleAsync((acquiredHandle, failure) -> {
				if (acquiredHandle != null) {
					acquired.incrementAndGet();
					acquiredHandle.release();
				}
				else if (failure instanceof CancellationException) {
					cancelled.incrementAndGet();
				}
				else if (unwrap(failure) instanceof LockNotAcquiredException) {
					timedOut.incrementAndGet();
				}
				else {
					throw new AssertionError("Unexpected failure", failure);
				}
				return null;
			}, this.releasers).whenComplete((ignored, failure) -> inFlight.release());
			all.add(done);
			if (random.nextInt(3) == 0) {
				long delay = random.nextInt(3);
				CompletableFuture.delayedExecutor(delay, TimeUnit.MILLISECONDS).execute(() -> handle.cancel(false));
			}
		}
		CompletableFuture.allOf(all.toArray(CompletableFuture[]::new)).get(120, TimeUnit.SECONDS);
		System.out.println("[figures] 10,000 async acquisitions: " + acquired + " acquired, " + timedOut
				+ " timed out, " + cancelled + " cancelled");
		assertThat(acquired.get() + timedOut.get() + cancelled.get()).isEqualTo(10_000);
		assertThat(acquired).hasPositiveValue();
		assertThat(cancelled).hasPositiveValue();
		assertThat(timedOut).hasPositiveValue();
		LockTestClients.assertNothingLeftBehind(client);
		for (String name : names) {
			assertThat(redis.command("EXISTS", "lock:{" + name + "}")).isEqualTo("0");
		}
	}

	@Test
	void cancellingAWaitingAcquisitionWithdrawsIt() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock();
		RedisLockClient client = this.clients.newClient();
		CompletableFuture<LockHandle> waiting = client.acquireAsync(name, Duration.ofSeconds(30), null);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		assertThat(waiting.cancel(false)).isTrue();
		holder.unlock();
		LockTestClients.assertNothingLeftBehind(client);
		assertThat(redis.command("EXISTS", "lock:{" + name + "}")).isEqualTo("0");
	}

	@Test
	void anAsyncAcquisitionFailsWithLockNotAcquiredWhenTheWaitEnds() {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock();
		RedisLockClient client = this.clients.newClient();
		CompletableFuture<LockHandle> waiting = client.acquireAsync(name, Duration.ofMillis(300), null);
		assertThatExceptionOfType(CompletionException.class).isThrownBy(waiting::join)
			.withCauseInstanceOf(LockNotAcquiredException.class)
			.withMessageContaining("Could not acquire lock '" + name + "' within 300ms");
		holder.unlock();
		LockTestClients.assertNothingLeftBehind(client);
	}

	@Test
	void withLockAsyncHoldsTheLockUntilTheStageCompletes() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients.newClient();
		RedisLockClient other = this.clients.newClient();
		CompletableFuture<String> work = new CompletableFuture<>();
		CompletableFuture<String> result = client.withLockAsync(name, Duration.ZERO, null, () -> work);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).heldCount() == 1);
		assertThat(other.tryAcquire(name, Duration.ofMillis(100), null)).isEmpty();
		work.complete("done");
		assertThat(result.get(5, TimeUnit.SECONDS)).isEqualTo("done");
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
		assertThat(other.tryAcquire(name, Duration.ZERO, null)).hasValueSatisfying(LockHandle::release);
	}

	@Test
	void withLockAsyncReleasesWhenTheStageFailsOrIsCancelled() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients.newClient();
		CompletableFuture<String> failing = new CompletableFuture<>();
		CompletableFuture<String> failed = client.withLockAsync(name, Duration.ZERO, null, () -> failing);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).heldCount() == 1);
		failing.completeExceptionally(new IllegalStateException("boom"));
		assertThatExceptionOfType(CompletionException.class).isThrownBy(failed::join)
			.withCauseInstanceOf(IllegalStateException.class)
			.withMessageContaining("boom");
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();

		CompletableFuture<String> cancelling = new CompletableFuture<>();
		CompletableFuture<String> cancelled = client.withLockAsync(name, Duration.ZERO, null, () -> cancelling);
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).heldCount() == 1);
		cancelling.cancel(false);
		// as for any stage that depends on a cancelled one
		assertThatExceptionOfType(CompletionException.class).isThrownBy(cancelled::join)
			.withCauseInstanceOf(CancellationException.class);
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
		assertThat(redis.command("EXISTS", "lock:{" + name + "}")).isEqualTo("0");
	}

	@Test
	void withLockAsyncDoesNotRunTheActionWhenTheLockStaysTaken() {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock();
		RedisLockClient client = this.clients.newClient();
		AtomicInteger runs = new AtomicInteger();
		CompletableFuture<String> result = client.withLockAsync(name, Duration.ofMillis(100), null, () -> {
			runs.incrementAndGet();
			return CompletableFuture.completedFuture("ran");
		});
		assertThatExceptionOfType(CompletionException.class).isThrownBy(result::join)
			.withCauseInstanceOf(LockNotAcquiredException.class);
		assertThat(runs).hasValue(0);
		holder.unlock();
	}

	private static Throwable unwrap(Throwable failure) {
		return (failure instanceof CompletionException && failure.getCause() != null) ? failure.getCause() : failure;
	}

}
