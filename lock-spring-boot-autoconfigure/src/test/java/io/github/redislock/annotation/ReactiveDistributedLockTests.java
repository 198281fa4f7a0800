package io.github.redislock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.reactivestreams.Publisher;
import reactor.core.Disposable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;
import reactor.core.scheduler.Scheduler;
import reactor.core.scheduler.Schedulers;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock} on methods returning {@link Mono} or {@link Flux}, against a
 * real Redis: the lock is taken when the result is subscribed, the method runs under it,
 * and it is released when the result terminates or is cancelled.
 */
class ReactiveDistributedLockTests {

	private static final Duration TIMEOUT = Duration.ofSeconds(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final OtherProcess otherProcess = new OtherProcess(redis);

	@Test
	void theLockIsTakenOnSubscriptionHeldWhileTheMethodRunsAndFreeWhenTheMonoCompletes() {
		run((context) -> {
			String id = unique();
			ReactiveOrders orders = context.getBean(ReactiveOrders.class);
			Mono<String> shipped = orders.ship(id, Mono.fromCallable(() -> "held=" + lock(id).isLocked()));
			assertThat(orders.calls()).as("the method runs on subscription, under the lock").isZero();
			assertThat(lock(id).isLocked()).isFalse();
			assertThat(shipped.map((value) -> value + ", after=" + lock(id).isLocked()).block(TIMEOUT))
				.isEqualTo("held=true, after=false");
			assertThat(orders.calls()).isOne();
			assertThat(shipped.block(TIMEOUT)).as("each subscription runs the method anew").isEqualTo("held=true");
			assertThat(orders.calls()).isEqualTo(2);
		});
	}

	@Test
	void anotherCallerWaitsWhileAMonoHoldsTheLock() {
		run((context) -> {
			String id = unique();
			ReactiveOrders orders = context.getBean(ReactiveOrders.class);
			Sinks.One<String> work = Sinks.one();
			CompletableFuture<String> first = orders.ship(id, work.asMono()).toFuture();
			await().atMost(TIMEOUT).until(() -> lock(id).isLocked());
			CompletableFuture<String> second = orders.ship(id, Mono.just("second")).toFuture();
			await().atMost(TIMEOUT).until(() -> inspector(context).waitingCount() == 1);
			assertThat(second).isNotDone();
			work.tryEmitValue("first");
			assertThat(first).succeedsWithin(TIMEOUT).isEqualTo("first");
			assertThat(second).succeedsWithin(TIMEOUT).isEqualTo("second");
			awaitFree(id);
		});
	}

	@Test
	void aFluxHoldsTheLockUntilItCompletes() {
		run((context) -> {
			String id = unique();
			List<Boolean> heldDuring = context.getBean(ReactiveOrders.class)
				.track(id, 4)
				.map((i) -> lock(id).isLocked())
				.collectList()
				.block(TIMEOUT);
			assertThat(heldDuring).containsExactly(true, true, true, true);
			awaitFree(id);
		});
	}

	@Test
	void anErrorReleasesTheLockAndReachesTheSubscriber() {
		run((context) -> {
			String id = unique();
			Mono<String> failing = context.getBean(ReactiveOrders.class)
				.ship(id, Mono.error(new IllegalStateException("out of stock")));
			assertThatExceptionOfType(IllegalStateException.class).isThrownBy(() -> failing.block(TIMEOUT))
				.withMessage("out of stock");
			awaitFree(id);
		});
	}

	@Test
	void aMethodThatThrowsReleasesTheLockAndFailsTheMono() {
		run((context) -> {
			String id = unique();
			Mono<String> failing = context.getBean(ReactiveOrders.class).throwing(id);
			assertThatExceptionOfType(IllegalArgumentException.class).isThrownBy(() -> failing.block(TIMEOUT))
				.withMessage("no such order " + id);
			awaitFree(id);
		});
	}

	@Test
	void cancellingTheSubscriptionReleasesTheLock() {
		run((context) -> {
			String id = unique();
			AtomicInteger cancelled = new AtomicInteger();
			Disposable subscription = context.getBean(ReactiveOrders.class)
				.ship(id, Mono.<String>never().doOnCancel(cancelled::incrementAndGet))
				.subscribe();
			await().atMost(TIMEOUT).until(() -> lock(id).isLocked());
			subscription.dispose();
			assertThat(cancelled).hasValue(1);
			awaitFree(id);
		});
	}

	@Test
	void aBusyLockFailsTheMonoWithLockNotAcquiredAndTheMethodNeverRuns() {
		run((context) -> {
			String id = unique();
			lock(id).lock();
			try {
				ReactiveOrders orders = context.getBean(ReactiveOrders.class);
				Mono<String> busy = orders.shipQuickly(id);
				assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> busy.block(TIMEOUT))
					.withMessage("Could not acquire lock 'order:" + id + "' within 100ms: another holder kept it");
				assertThat(orders.calls()).isZero();
			}
			finally {
				lock(id).unlock();
			}
		});
	}

	@Test
	void skipAnswersAnEmptyMonoAFluxOrAnEmptyOptional() {
		run((context) -> {
			String id = unique();
			lock(id).lock();
			try {
				ReactiveOrders orders = context.getBean(ReactiveOrders.class);
				assertThat(orders.shipIfFree(id).blockOptional(TIMEOUT)).isEmpty();
				assertThat(orders.findIfFree(id).block(TIMEOUT)).isEmpty();
				assertThat(orders.trackIfFree(id).collectList().block(TIMEOUT)).isEmpty();
				assertThat(orders.calls()).isZero();
			}
			finally {
				lock(id).unlock();
			}
		});
	}

	@Test
	void aFallbackAnswersWhenTheLockIsBusy() {
		run((context) -> {
			String id = unique();
			lock(id).lock();
			try {
				assertThat(context.getBean(ReactiveOrders.class).shipOrSayBusy(id).block(TIMEOUT))
					.isEqualTo("busy: order:" + id);
			}
			finally {
				lock(id).unlock();
			}
		});
	}

	@Test
	void severalKeysAreTakenAllOrNone() {
		run((context) -> {
			String a = unique();
			String b = unique();
			lock(b).lock();
			try {
				Mono<String> both = context.getBean(ReactiveOrders.class).merge(List.of(a, b));
				assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> both.block(TIMEOUT));
				assertThat(lock(a).isLocked()).as("the first lock is given back").isFalse();
			}
			finally {
				lock(b).unlock();
			}
			assertThat(context.getBean(ReactiveOrders.class).merge(List.of(a, b)).block(TIMEOUT)).isEqualTo("held=2");
			awaitFree(a);
			awaitFree(b);
		});
	}

	@Test
	void aLostLeaseFailsTheMonoWithIfLeaseLostThrow() {
		run((context) -> {
			String id = unique();
			Mono<String> overrun = context.getBean(ReactiveOrders.class).overrun(id);
			assertThatExceptionOfType(LeaseExpiredException.class).isThrownBy(() -> overrun.block(TIMEOUT))
				.withMessageContaining("order:" + id);
		});
	}

	@Test
	void aNestedLockedCallOnTheSameNameReentersWithinOnePipeline() {
		run((context) -> {
			String id = unique();
			// the inner method waits 0 ms: without re-entry it would fail at once
			assertThat(context.getBean(ReactiveOuter.class).shipTwice(id).block(TIMEOUT)).isEqualTo("inner inner");
			awaitFree(id);
		});
	}

	// Redisson #4467: two unrelated pipelines on one event-loop thread shared a hold
	@Test
	void twoUnrelatedCallsOnOneEventLoopThreadNeverShareAHold() {
		run((context) -> {
			String id = unique();
			ReactiveOrders orders = context.getBean(ReactiveOrders.class);
			Scheduler eventLoop = Schedulers.newSingle("one-event-loop");
			try {
				CountDownLatch firstHolds = new CountDownLatch(1);
				CompletableFuture<String> first = orders
					.ship(id,
							Mono.fromRunnable(firstHolds::countDown)
								.then(Mono.delay(Duration.ofMillis(800), eventLoop))
								.thenReturn("first"))
					.subscribeOn(eventLoop)
					.toFuture();
				assertThat(firstHolds.await(10, TimeUnit.SECONDS)).isTrue();
				Mono<String> second = orders.shipQuickly(id).subscribeOn(eventLoop);
				assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> second.block(TIMEOUT));
				assertThat(first).succeedsWithin(TIMEOUT).isEqualTo("first");
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			finally {
				eventLoop.dispose();
			}
		});
	}

	@Test
	void aPublisherThatIsNotAMonoOrFluxFailsStartup() {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withBean(PublisherShipping.class)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining(
						"@DistributedLock on PublisherShipping.ship(String) returns Publisher: the lock would be "
								+ "released when the method returns, before the asynchronous work ends. Return a "
								+ "CompletableFuture or CompletionStage, or a Mono or Flux");
			});
	}

	private RedisLock lock(String id) {
		return this.otherProcess.getLock("order:" + id);
	}

	private void awaitFree(String id) {
		await().atMost(TIMEOUT).until(() -> !lock(id).isLocked());
	}

	private static LockInspector inspector(AssertableApplicationContext context) {
		return LockInspector.of(context.getBean(RedisLockClient.class)).orElseThrow();
	}

	private void run(ContextConsumer<AssertableApplicationContext> test) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
			.withPropertyValues("redis-lock.wait-time=10s")
			.withUserConfiguration(Services.class)
			.run((context) -> {
				assertThat(context).hasNotFailed();
				test.accept(context);
				await().atMost(TIMEOUT).untilAsserted(() -> {
					assertThat(inspector(context).heldCount()).as("held").isZero();
					assertThat(inspector(context).waitingCount()).as("waiting").isZero();
				});
			});
	}

	private static String unique() {
		return UUID.randomUUID().toString();
	}

	@Configuration(proxyBeanMethods = false)
	static class Services {

		@Bean
		ReactiveOrders reactiveOrders() {
			return new ReactiveOrders();
		}

		@Bean
		ReactiveOuter reactiveOuter(ReactiveOrders orders) {
			return new ReactiveOuter(orders);
		}

		@Bean
		LockFallback reactiveBusy() {
			return (method, arguments, exception) -> Mono.just("busy: " + exception.getLockName());
		}

	}

	static class ReactiveOrders {

		private final AtomicInteger calls = new AtomicInteger();

		int calls() {
			return this.calls.get();
		}

		@DistributedLock(name = "order", key = "#id")
		public Mono<String> ship(String id, Mono<String> work) {
			this.calls.incrementAndGet();
			return work;
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "100ms")
		public Mono<String> shipQuickly(String id) {
			this.calls.incrementAndGet();
			return Mono.just("shipped " + id);
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "0")
		public Mono<String> shipInner(String id) {
			return Mono.just("inner");
		}

		@DistributedLock(name = "order", key = "#id")
		public Mono<String> throwing(String id) {
			throw new IllegalArgumentException("no such order " + id);
		}

		@DistributedLock(name = "order", key = "#id")
		public Flux<Integer> track(String id, int steps) {
			return Flux.range(0, steps).delayElements(Duration.ofMillis(20));
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "50ms", ifLocked = IfLocked.SKIP)
		public Mono<String> shipIfFree(String id) {
			this.calls.incrementAndGet();
			return Mono.just(id);
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "50ms", ifLocked = IfLocked.SKIP)
		public Mono<Optional<String>> findIfFree(String id) {
			this.calls.incrementAndGet();
			return Mono.just(Optional.of(id));
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "50ms", ifLocked = IfLocked.SKIP)
		public Flux<String> trackIfFree(String id) {
			this.calls.incrementAndGet();
			return Flux.just(id);
		}

		@DistributedLock(name = "order", key = "#id", waitTime = "50ms", fallback = "reactiveBusy")
		public Mono<String> shipOrSayBusy(String id) {
			return Mono.just(id);
		}

		@DistributedLock(name = "order", key = "#ids", waitTime = "200ms")
		public Mono<String> merge(List<String> ids) {
			return Mono.just("held=" + ids.size());
		}

		@DistributedLock(name = "order", key = "#id", leaseTime = "200ms", ifLeaseLost = IfLeaseLost.THROW)
		public Mono<String> overrun(String id) {
			return Mono.delay(Duration.ofMillis(600)).thenReturn("late");
		}

	}

	static class ReactiveOuter {

		private final ReactiveOrders orders;

		ReactiveOuter(ReactiveOrders orders) {
			this.orders = orders;
		}

		@DistributedLock(name = "order", key = "#id")
		public Mono<String> shipTwice(String id) {
			return this.orders.shipInner(id)
				.flatMap((first) -> this.orders.shipInner(id).map((second) -> first + " " + second));
		}

	}

	static class PublisherShipping {

		@DistributedLock(key = "#id")
		public Publisher<String> ship(String id) {
			return Mono.just(id);
		}

	}

}
