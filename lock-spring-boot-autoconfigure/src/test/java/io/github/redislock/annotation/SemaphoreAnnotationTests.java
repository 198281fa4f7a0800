package io.github.redislock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.LockHandle;
import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisSemaphore;
import io.github.redislock.TestThreads;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@code @DistributedLock(permits = N)} on real beans against a real Redis: at most N
 * calls of a name run at once, on plain, {@code CompletionStage}, {@code Mono} and
 * {@code Flux} methods ({@code suspend} functions: {@code SuspendDistributedLockTests});
 * {@code ifLocked} and several keys (all permits or none) work as for locks; and a limit
 * below 1, or above 1 with another mode, fails start-up naming the method.
 */
class SemaphoreAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void atMostPermitsPlainCallsRunAtOnceAndAllPermitsAreUsed() {
		run((context) -> {
			String region = unique();
			Exports exports = context.getBean(Exports.class);
			CountDownLatch leave = new CountDownLatch(1);
			List<CompletableFuture<Void>> calls = new ArrayList<>();
			for (int i = 0; i < 5; i++) {
				calls.add(CompletableFuture.runAsync(() -> exports.export(region, leave), TestThreads.perTask()));
			}
			await().atMost(Duration.ofSeconds(20)).until(() -> exports.inside() == 2);
			// full: a caller that does not wait is refused, one that skips gets null
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> exports.exportNow(region));
			assertThat(exports.exportOrSkip(region)).isNull();
			leave.countDown();
			CompletableFuture.allOf(calls.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
			assertThat(exports.most()).isEqualTo(2);
			assertThat(exports.exportNow(region)).isEqualTo("exported " + region);
			assertThat(semaphore(context, region).availablePermits()).isEqualTo(2);
		});
	}

	@Test
	void aCompletionStageMethodHoldsItsPermitUntilTheStageCompletes() {
		run((context) -> {
			String region = unique();
			AsyncExports exports = context.getBean(AsyncExports.class);
			CompletableFuture<String> firstResult = new CompletableFuture<>();
			CompletableFuture<String> first = exports.export(region, firstResult);
			CompletableFuture<String> second = exports.export(region, new CompletableFuture<>());
			assertThat(semaphore(context, region).availablePermits()).isZero();
			CompletableFuture<String> refused = exports.export(region, CompletableFuture.completedFuture("third"));
			assertThatExceptionOfType(ExecutionException.class).isThrownBy(() -> refused.get(10, TimeUnit.SECONDS))
				.withCauseInstanceOf(LockNotAcquiredException.class);
			firstResult.complete("first");
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("first");
			assertThat(exports.export(region, CompletableFuture.completedFuture("third")).get(10, TimeUnit.SECONDS))
				.isEqualTo("third");
			second.cancel(false);
			await().atMost(Duration.ofSeconds(10)).until(() -> semaphore(context, region).availablePermits() == 2);
		});
	}

	@Test
	void aMonoMethodRunsUnderAPermit() {
		run((context) -> {
			String region = unique();
			ReactiveExports exports = context.getBean(ReactiveExports.class);
			assertThat(exports.export(region).block(Duration.ofSeconds(20))).isEqualTo(1);
			assertThat(semaphore(context, region).availablePermits()).isEqualTo(2);
		});
	}

	@Test
	void aFluxMethodHoldsItsPermitUntilTheFluxCompletes() {
		run((context) -> {
			String region = unique();
			ReactiveExports exports = context.getBean(ReactiveExports.class);
			Sinks.Many<Integer> firstSource = Sinks.many().unicast().onBackpressureBuffer();
			Sinks.Many<Integer> secondSource = Sinks.many().unicast().onBackpressureBuffer();
			List<Integer> received = new java.util.concurrent.CopyOnWriteArrayList<>();
			exports.stream(region, firstSource.asFlux()).subscribe(received::add);
			CompletableFuture<List<Integer>> second = exports.stream(region, secondSource.asFlux())
				.collectList()
				.toFuture();
			await().atMost(Duration.ofSeconds(20)).until(() -> semaphore(context, region).availablePermits() == 0);
			firstSource.tryEmitNext(1);
			await().atMost(Duration.ofSeconds(10)).until(() -> received.contains(1));
			// both streams still run: a third finds no permit
			assertThat(semaphore(context, region).availablePermits()).isZero();
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> exports.stream(region, Flux.just(3)).blockLast(Duration.ofSeconds(20)));
			firstSource.tryEmitComplete();
			await().atMost(Duration.ofSeconds(10)).until(() -> semaphore(context, region).availablePermits() == 1);
			assertThat(exports.stream(region, Flux.just(3, 4)).collectList().block(Duration.ofSeconds(20)))
				.containsExactly(3, 4);
			secondSource.tryEmitNext(2);
			secondSource.tryEmitComplete();
			assertThat(second.get(20, TimeUnit.SECONDS)).containsExactly(2);
			assertThat(received).containsExactly(1);
			await().atMost(Duration.ofSeconds(10)).until(() -> semaphore(context, region).availablePermits() == 2);
		});
	}

	@Test
	void severalKeysTakeAPermitOfEachOrNone() {
		run((context) -> {
			String a = unique();
			String b = unique();
			Exports exports = context.getBean(Exports.class);
			RedisSemaphore second = semaphore(context, b);
			LockHandle one = second.acquire(Duration.ZERO, null);
			LockHandle two = second.acquire(Duration.ZERO, null);
			assertThatExceptionOfType(LockNotAcquiredException.class)
				.isThrownBy(() -> exports.exportAll(List.of(a, b)));
			// the first name's permit was given back
			assertThat(semaphore(context, a).availablePermits()).isEqualTo(2);
			one.release();
			two.release();
			assertThat(exports.exportAll(List.of(a, b))).isEqualTo("exported " + a + " and " + b);
		});
	}

	@Test
	void aLimitBelowOneFailsStartupNamingTheMethod() {
		assertStartupFails(NoPermits.class,
				"@DistributedLock on NoPermits.export(String): permits must be at least 1, " + "was 0");
	}

	@Test
	void permitsWithAnotherModeFailStartupNamingTheMethod() {
		assertStartupFails(FairPermits.class,
				"@DistributedLock on FairPermits.export(String): permits = 3, but mode = FAIR has one holder at a time; "
						+ "only mode = EXCLUSIVE (a semaphore) lets several hold a name at once");
	}

	private void assertStartupFails(Class<?> service, String message) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withBean(service)
			.run((context) -> {
				assertThat(context).hasFailed();
				assertThat(context.getStartupFailure()).hasStackTraceContaining(message);
			});
	}

	private static RedisSemaphore semaphore(AssertableApplicationContext context, String region) {
		return context.getBean(RedisLockClient.class).getSemaphore("exports:" + region, 2);
	}

	private void run(ContextConsumer<AssertableApplicationContext> test) {
		new ApplicationContextRunner().withConfiguration(RedisLockTestContexts.redisAndLock())
			.withPropertyValues(RedisLockTestContexts.redisProperties(redis))
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
		Exports exports() {
			return new Exports();
		}

		@Bean
		AsyncExports asyncExports() {
			return new AsyncExports();
		}

		@Bean
		ReactiveExports reactiveExports(RedisLockClient client) {
			return new ReactiveExports(client);
		}

	}

	static class Exports {

		private final AtomicInteger inside = new AtomicInteger();

		private final AtomicInteger most = new AtomicInteger();

		public int inside() {
			return this.inside.get();
		}

		public int most() {
			return this.most.get();
		}

		@DistributedLock(name = "exports", key = "#region", permits = 2, waitTime = "30s")
		public void export(String region, CountDownLatch leave) {
			this.most.accumulateAndGet(this.inside.incrementAndGet(), Math::max);
			try {
				leave.await(30, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
			finally {
				this.inside.decrementAndGet();
			}
		}

		@DistributedLock(name = "exports", key = "#region", permits = 2, waitTime = "0")
		public String exportNow(String region) {
			return "exported " + region;
		}

		@DistributedLock(name = "exports", key = "#region", permits = 2, waitTime = "0", ifLocked = IfLocked.SKIP)
		public String exportOrSkip(String region) {
			return "exported " + region;
		}

		@DistributedLock(name = "exports", key = "#regions", permits = 2, waitTime = "0")
		public String exportAll(List<String> regions) {
			return "exported " + String.join(" and ", regions);
		}

	}

	static class AsyncExports {

		@DistributedLock(name = "exports", key = "#region", permits = 2, waitTime = "0")
		public CompletableFuture<String> export(String region, CompletableFuture<String> result) {
			return result;
		}

	}

	static class ReactiveExports {

		private final RedisLockClient client;

		ReactiveExports(RedisLockClient client) {
			this.client = client;
		}

		@DistributedLock(name = "exports", key = "#region", permits = 2)
		public Mono<Integer> export(String region) {
			return Mono.fromCallable(() -> this.client.getSemaphore("exports:" + region, 2).availablePermits());
		}

		@DistributedLock(name = "exports", key = "#region", permits = 2, waitTime = "0")
		public Flux<Integer> stream(String region, Flux<Integer> source) {
			return source;
		}

	}

	static class NoPermits {

		@DistributedLock(permits = 0)
		public void export(String id) {
		}

	}

	static class FairPermits {

		@DistributedLock(mode = LockMode.FAIR, permits = 3)
		public void export(String id) {
		}

	}

}
