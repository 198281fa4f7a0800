package io.github.redislock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.TestThreads;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.Async;
import org.springframework.scheduling.annotation.EnableAsync;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@link CompletableFuture} or
 * {@link CompletionStage}, against a real Redis: the lock is held until the returned
 * stage completes, however it completes, and is free when the caller sees it complete.
 */
class AsyncDistributedLockTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final OtherProcess otherProcess = new OtherProcess(redis);

	@Test
	void holdsTheLockUntilTheFutureCompletesWhileAnotherCallerWaits() throws Exception {
		run((context) -> {
			String id = unique();
			AsyncOrders orders = context.getBean(AsyncOrders.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> first = orders.ship(id, work);
			assertThat(first).isNotDone();
			assertThat(lock(id).isLocked()).isTrue();
			ExecutorService executor = Executors.newSingleThreadExecutor();
			try {
				CompletableFuture<String> second = CompletableFuture
					.supplyAsync(() -> orders.ship(id, CompletableFuture.completedFuture("second")), executor)
					.thenCompose((stage) -> stage);
				LockInspector inspector = LockInspector.of(context.getBean(RedisLockClient.class)).orElseThrow();
				await().atMost(TIMEOUT).until(() -> inspector.waitingCount() == 1);
				assertThat(second).isNotDone();
				work.complete("first");
				assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
				assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("second");
				assertThat(lock(id).isLocked()).isFalse();
			}
			finally {
				executor.shutdownNow();
			}
		});
	}

	@Test
	void theLockIsFreeWhenTheCallerSeesTheResultOnAThreadThatMayBlock() {
		run((context) -> {
			AsyncOrders orders = context.getBean(AsyncOrders.class);
			for (int i = 0; i < 20; i++) {
				String id = unique();
				CompletableFuture<String> work = new CompletableFuture<>();
				CompletableFuture<String> seen = orders.ship(id, work)
					.thenApply((value) -> (lock(id).isLocked() ? "still locked" : "free") + " on "
							+ Thread.currentThread().getName());
				work.complete("done");
				assertThat(seen).succeedsWithin(TIMEOUT)
					.asString()
					.startsWith("free on ")
					.doesNotContain("lettuce")
					.doesNotContain("redis-lock");
			}
		});
	}

	@Test
	void aCompletionStageMethodHoldsItsLockToo() {
		run((context) -> {
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletionStage<String> result = context.getBean(AsyncOrders.class)
				.shipStage(id, work.minimalCompletionStage());
			assertThat(lock(id).isLocked()).isTrue();
			work.complete("done");
			assertThat(result.toCompletableFuture()).succeedsWithin(TIMEOUT).isEqualTo("done");
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void exceptionalCompletionReleasesAndFailsWithTheSameException() {
		run((context) -> {
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(AsyncOrders.class).ship(id, work);
			IllegalStateException failure = new IllegalStateException("carrier refused " + id);
			work.completeExceptionally(failure);
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isSameAs(failure);
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void cancellingTheResultCancelsTheWorkAndReleases() {
		run((context) -> {
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(AsyncOrders.class).ship(id, work);
			assertThat(lock(id).isLocked()).isTrue();
			assertThat(result.cancel(true)).isTrue();
			assertThat(work).isCancelled();
			await().atMost(TIMEOUT).until(() -> !lock(id).isLocked());
			assertThat(this.otherProcess.client().tryAcquire(name(id), Duration.ZERO, null))
				.hasValueSatisfying(LockHandle::release);
		});
	}

	@Test
	void cancellingTheMethodsOwnFutureReleases() {
		run((context) -> {
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(AsyncOrders.class).ship(id, work);
			work.cancel(false);
			assertThat(result).failsWithin(TIMEOUT).withThrowableOfType(CancellationException.class);
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void aMethodThrowingBeforeReturningAStageReleasesAndThrows() {
		run((context) -> {
			String id = unique();
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(AsyncOrders.class).failAtOnce(id))
				.withMessage("refused " + id);
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void aLockHeldElsewhereFailsTheStageSkipsOrFallsBack() {
		run((context) -> {
			String id = unique();
			AsyncOrders orders = context.getBean(AsyncOrders.class);
			try (LockHandle elsewhere = this.otherProcess.client().acquire(name(id), Duration.ZERO, null)) {
				assertThat(orders.noWait(id)).failsWithin(TIMEOUT)
					.withThrowableOfType(ExecutionException.class)
					.havingCause()
					.isInstanceOf(LockNotAcquiredException.class)
					.withMessageContaining(name(id));
				assertThat(orders.skipToEmpty(id)).succeedsWithin(TIMEOUT).isEqualTo(Optional.empty());
				assertThat(orders.skipToNull(id)).succeedsWithin(TIMEOUT).isNull();
				assertThat(orders.withFallback(id)).succeedsWithin(TIMEOUT).isEqualTo("busy: " + name(id));
				assertThat(orders.calls()).isZero();
				assertThat(elsewhere.isHeld()).isTrue();
			}
		});
	}

	@Test
	void severalKeysAreTakenAllOrNoneAndHeldUntilCompletion() {
		run((context) -> {
			String a = unique();
			String b = unique();
			AsyncOrders orders = context.getBean(AsyncOrders.class);
			try (LockHandle elsewhere = this.otherProcess.client().acquire("account:" + b, Duration.ZERO, null)) {
				assertThat(orders.transfer(List.of(a, b), new CompletableFuture<>())).failsWithin(TIMEOUT)
					.withThrowableOfType(ExecutionException.class)
					.havingCause()
					.isInstanceOf(LockNotAcquiredException.class);
				assertThat(this.otherProcess.getLock("account:" + a).isLocked()).isFalse();
				assertThat(elsewhere.isHeld()).isTrue();
			}
			CompletableFuture<Void> work = new CompletableFuture<>();
			CompletableFuture<Void> transfer = orders.transfer(List.of(a, b), work);
			assertThat(this.otherProcess.getLock("account:" + a).isLocked()).isTrue();
			assertThat(this.otherProcess.getLock("account:" + b).isLocked()).isTrue();
			work.complete(null);
			assertThat(transfer).succeedsWithin(TIMEOUT);
			assertThat(this.otherProcess.getLock("account:" + a).isLocked()).isFalse();
			assertThat(this.otherProcess.getLock("account:" + b).isLocked()).isFalse();
		});
	}

	@Test
	void aLeaseLostBeforeCompletionFailsTheStageWhenAskedTo() {
		run((context) -> {
			String id = unique();
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> result = context.getBean(AsyncOrders.class).shortLease(id, work);
			await().atMost(TIMEOUT).until(() -> !lock(id).isLocked());
			work.complete("too late");
			assertThat(result).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LeaseExpiredException.class);
		});
	}

	@Test
	void aNestedAsynchronousCallSharesTheLockAndKeepsItUntilItCompletes() {
		run((context) -> {
			String id = unique();
			CompletableFuture<String> innerWork = new CompletableFuture<>();
			CompletableFuture<String> outer = context.getBean(AsyncOuter.class).thenAsync(id, innerWork);
			// the outer method's own stage completed at once, but the inner call still
			// runs
			assertThat(lock(id).isLocked()).isTrue();
			assertThat(outer).isNotDone();
			innerWork.complete("inner done");
			assertThat(outer).succeedsWithin(TIMEOUT).isEqualTo("outer " + id);
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void aNestedSynchronousCallRunsInsideTheAsynchronousHold() {
		run((context) -> {
			String id = unique();
			assertThat(context.getBean(AsyncOuter.class).thenSync(id)).succeedsWithin(TIMEOUT).isEqualTo("inner " + id);
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void anAsynchronousCallInsideASynchronousHoldOfTheSameLockFailsAtOnceNamingBoth() {
		run((context) -> {
			String id = unique();
			assertThatIllegalStateException().isThrownBy(() -> context.getBean(AsyncOuter.class).syncThenAsync(id))
				.withMessageContaining("@DistributedLock on AsyncInner.ship(String, CompletableFuture) cannot take "
						+ "lock '" + name(id) + "': AsyncOuter.syncThenAsync(String), which calls it, holds it until "
						+ "it returns");
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void anAsynchronousCallWhileTheThreadHoldsTheLockFailsAtOnce() {
		run((context) -> {
			String id = unique();
			RedisLock held = context.getBean(RedisLockClient.class).getLock(name(id));
			held.lock();
			try {
				assertThatIllegalStateException()
					.isThrownBy(() -> context.getBean(AsyncInner.class).ship(id, new CompletableFuture<>()))
					.withMessageContaining("cannot take lock '" + name(id) + "': the calling thread holds it");
			}
			finally {
				held.unlock();
			}
			assertThat(lock(id).isLocked()).isFalse();
		});
	}

	@Test
	void aContinuationOnAnotherThreadWaitsLikeAnyCaller() {
		run((context) -> {
			String id = unique();
			AsyncInner inner = context.getBean(AsyncInner.class);
			CompletableFuture<String> work = new CompletableFuture<>();
			CompletableFuture<String> first = inner.ship(id, work);
			// a later stage of the same flow is a new caller: the lock is taken, it gives
			// up
			CompletableFuture<String> later = CompletableFuture.supplyAsync(() -> id, TestThreads.perTask())
				.thenCompose((value) -> inner.ship(value, CompletableFuture.completedFuture("later")));
			assertThat(later).failsWithin(TIMEOUT)
				.withThrowableOfType(ExecutionException.class)
				.havingCause()
				.isInstanceOf(LockNotAcquiredException.class);
			work.complete("first");
			assertThat(first).succeedsWithin(TIMEOUT);
		});
	}

	@Test
	void asyncTogetherWithDistributedLockStartsAndHoldsTheLockWhileTheAsyncBodyRuns() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withUserConfiguration(AsyncExecution.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				String id = unique();
				CompletableFuture<Void> gate = new CompletableFuture<>();
				CompletableFuture<String> result = context.getBean(AsyncJobs.class).shipLater(id, gate);
				await().atMost(TIMEOUT).until(() -> lock(id).isLocked());
				assertThat(result).isNotDone();
				gate.complete(null);
				assertThat(result).succeedsWithin(TIMEOUT).asString().startsWith("shipped " + id + " on ");
				await().atMost(TIMEOUT).until(() -> !lock(id).isLocked());
			});
	}

	private RedisLock lock(String id) {
		return this.otherProcess.getLock(name(id));
	}

	private static String name(String id) {
		return "order:" + id;
	}

	private void run(ContextConsumer<AssertableApplicationContext> test) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.wait-time=10s")
			.withUserConfiguration(Services.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.accept(context);
			});
	}

	private static String unique() {
		return UUID.randomUUID().toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		AsyncOrders asyncOrders() {
			return new AsyncOrders();
		}

		@Bean
		AsyncInner asyncInner() {
			return new AsyncInner();
		}

		@Bean
		AsyncOuter asyncOuter(AsyncInner inner) {
			return new AsyncOuter(inner);
		}

		@Bean
		LockFallback asyncBusy() {
			return (method, arguments, exception) -> CompletableFuture
				.completedFuture("busy: " + exception.getLockName());
		}

	}

	@Configuration(proxyBeanMethods = false)
	@EnableAsync
	static class AsyncExecution {

		@Bean
		AsyncJobs asyncJobs() {
			return new AsyncJobs();
		}

	}

	static class AsyncJobs {

		@Async
		@DistributedLock(name = "order", key = "#id")
		public CompletableFuture<String> shipLater(String id, CompletableFuture<Void> gate) {
			gate.join();
			return CompletableFuture.completedFuture("shipped " + id + " on " + Thread.currentThread().getName());
		}

	}

	static class AsyncOrders {

		private final java.util.concurrent.atomic.AtomicInteger calls = new java.util.concurrent.atomic.AtomicInteger();

		public int calls() {
			return this.calls.get();
		}

		@DistributedLock(name = "order", key = "#id")
		public CompletableFuture<String> ship(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "order", key = "#id")
		public CompletionStage<String> shipStage(String id, CompletionStage<String> work) {
			return work;
		}

		@DistributedLock(name = "order", key = "#id")
		public CompletableFuture<String> failAtOnce(String id) {
			throw new IllegalStateException("refused " + id);
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "0")
		public CompletableFuture<String> noWait(String id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(id);
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "0", ifLocked = IfLocked.SKIP)
		public CompletableFuture<Optional<String>> skipToEmpty(String id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(Optional.of(id));
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "0", ifLocked = IfLocked.SKIP)
		public CompletableFuture<String> skipToNull(String id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(id);
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "0", fallback = "asyncBusy")
		public CompletableFuture<String> withFallback(String id) {
			this.calls.incrementAndGet();
			return CompletableFuture.completedFuture(id);
		}

		@DistributedLock(name = "account", key = "#ids", waitTime = "0")
		public CompletableFuture<Void> transfer(List<String> ids, CompletableFuture<Void> work) {
			return work;
		}

		@DistributedLock(name = "order", key = "#id", leaseTime = "300ms", ifLeaseLost = IfLeaseLost.THROW)
		public CompletableFuture<String> shortLease(String id, CompletableFuture<String> work) {
			return work;
		}

	}

	static class AsyncInner {

		// no wait: a call that failed to share its caller's lock fails at once
		@DistributedLock(name = "order", key = "#id", waitTime = "0")
		public CompletableFuture<String> ship(String id, CompletableFuture<String> work) {
			return work;
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "0")
		public String sync(String id) {
			return "inner " + id;
		}

	}

	static class AsyncOuter {

		private final AsyncInner inner;

		AsyncOuter(AsyncInner inner) {
			this.inner = inner;
		}

		@DistributedLock(name = "order", key = "#id")
		public CompletableFuture<String> thenAsync(String id, CompletableFuture<String> innerWork) {
			this.inner.ship(id, innerWork);
			return CompletableFuture.completedFuture("outer " + id);
		}

		@DistributedLock(name = "order", key = "#id")
		public CompletableFuture<String> thenSync(String id) {
			return CompletableFuture.completedFuture(this.inner.sync(id));
		}

		@DistributedLock(name = "order", key = "#id")
		public String syncThenAsync(String id) {
			return this.inner.ship(id, CompletableFuture.completedFuture("inner")).join();
		}

	}

}
