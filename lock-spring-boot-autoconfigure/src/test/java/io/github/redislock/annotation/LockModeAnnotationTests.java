package io.github.redislock.annotation;

import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.TestThreads;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.context.runner.ContextConsumer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@code @DistributedLock(mode = READ | WRITE | FAIR)} on real beans against a real
 * Redis: the read/write lock of the name is taken, readers are inside together, a writer
 * excludes them, a write method may call a read method (downgrade) but not the other way
 * round; the fair lock of the name is taken in turn; {@code holdAtLeast} works with every
 * mode.
 */
class LockModeAnnotationTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void readMethodsOfTwoThreadsAreInsideTogetherOnTheReadLockOfTheName() {
		run((context) -> {
			String region = unique();
			Prices prices = context.getBean(Prices.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			// each call waits inside until the other is inside too: an exclusive lock
			// would keep the second out until the first gave up
			CyclicBarrier together = new CyclicBarrier(2);
			CompletableFuture<Boolean> first = CompletableFuture.supplyAsync(() -> prices.read(region, together),
					TestThreads.perTask());
			assertThat(prices.read(region, together)).isTrue();
			assertThat(first.get(20, TimeUnit.SECONDS)).isTrue();
			assertThat(prices.heldInside()).as("the read lock of 'prices:<region>' held inside")
				.isEqualTo("read prices:" + region);
			assertThat(client.getReadWriteLock("prices:" + region).readLock().isLocked()).isFalse();
		});
	}

	@Test
	void aWriteMethodKeepsReadersOut() {
		run((context) -> {
			String region = unique();
			Prices prices = context.getBean(Prices.class);
			CountDownLatch inside = new CountDownLatch(1);
			CountDownLatch leave = new CountDownLatch(1);
			CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> prices.write(region, inside, leave),
					TestThreads.perTask());
			assertThat(inside.await(20, TimeUnit.SECONDS)).isTrue();
			assertThatExceptionOfType(LockNotAcquiredException.class).isThrownBy(() -> prices.readNow(region));
			leave.countDown();
			writer.get(20, TimeUnit.SECONDS);
			assertThat(prices.readNow(region)).isEqualTo("read prices:" + region);
		});
	}

	@Test
	void aWriteMethodMayCallAReadMethodButAReadMethodCannotCallAWriteMethod() {
		run((context) -> {
			String region = unique();
			Rebalancer rebalancer = context.getBean(Rebalancer.class);
			assertThat(rebalancer.writeThenRead(region)).isEqualTo("read prices:" + region);
			assertThatExceptionOfType(IllegalMonitorStateException.class)
				.isThrownBy(() -> rebalancer.readThenWrite(region))
				.withMessageContaining("holds the read lock of 'prices:" + region + "'");
			// nothing is left held by the failed call
			assertThat(
					context.getBean(RedisLockClient.class).getReadWriteLock("prices:" + region).readLock().isLocked())
				.isFalse();
			assertThat(context.getBean(Prices.class).readNow(region)).isEqualTo("read prices:" + region);
		});
	}

	@Test
	void aFairMethodTakesTheFairLockOfTheNameAndCallersGetItInTurn() {
		run((context) -> {
			String region = unique();
			Prices prices = context.getBean(Prices.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			assertThat(prices.publishInTurn(region)).isEqualTo("fair prices:" + region);
			// taken elsewhere, a caller waits in the queue and gets it when released
			RedisLock elsewhere = client.getFairLock("prices:" + region);
			CompletableFuture.runAsync(() -> elsewhere.lock(java.time.Duration.ofSeconds(20)), TestThreads.perTask())
				.join();
			CompletableFuture<String> caller = CompletableFuture.supplyAsync(() -> prices.publishInTurn(region),
					TestThreads.perTask());
			org.awaitility.Awaitility.await()
				.atMost(java.time.Duration.ofSeconds(10))
				.until(() -> client.getFairLock("prices:" + region).isLocked() && !caller.isDone());
			elsewhere.forceUnlock();
			assertThat(caller.get(20, TimeUnit.SECONDS)).isEqualTo("fair prices:" + region);
		});
	}

	@Test
	void asynchronousReadMethodsHoldTheReadLockUntilTheirResultCompletesAndWriteMethodsWait() {
		run((context) -> {
			String region = unique();
			AsyncPrices prices = context.getBean(AsyncPrices.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			RedisReadWriteLock lock = client.getReadWriteLock("prices:" + region);
			CompletableFuture<String> firstRead = new CompletableFuture<>();
			CompletableFuture<String> secondRead = new CompletableFuture<>();
			CompletableFuture<String> first = prices.read(region, firstRead);
			CompletableFuture<String> second = prices.read(region, secondRead);
			// both hold the read lock (handles) after their methods returned
			assertThat(lock.readLock().isLocked()).isTrue();
			assertThat(lock.tryAcquireWrite(java.time.Duration.ZERO, null)).isEmpty();
			CompletableFuture<String> write = CompletableFuture
				.supplyAsync(() -> prices.write(region, CompletableFuture.completedFuture("written")),
						TestThreads.perTask())
				.thenCompose((stage) -> stage);
			firstRead.complete("a");
			assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo("a");
			assertThat(write).isNotDone();
			secondRead.complete("b");
			assertThat(second.get(10, TimeUnit.SECONDS)).isEqualTo("b");
			assertThat(write.get(20, TimeUnit.SECONDS)).isEqualTo("written");
			assertThat(lock.readLock().isLocked() || lock.writeLock().isLocked()).isFalse();
		});
	}

	@Test
	void asynchronousFairMethodsHoldTheFairLockUntilTheirResultCompletes() {
		run((context) -> {
			String region = unique();
			AsyncPrices prices = context.getBean(AsyncPrices.class);
			RedisLock fair = context.getBean(RedisLockClient.class).getFairLock("prices:" + region);
			CompletableFuture<String> result = new CompletableFuture<>();
			CompletableFuture<String> call = prices.inTurn(region, result);
			assertThat(fair.isLocked()).isTrue();
			result.complete("done");
			assertThat(call.get(10, TimeUnit.SECONDS)).isEqualTo("done");
			assertThat(fair.isLocked()).isFalse();
		});
	}

	@Test
	void reactiveMethodsTakeTheReadWriteOrFairLockOfTheNameWhileTheirPipelineRuns() {
		run((context) -> {
			String region = unique();
			ReactivePrices prices = context.getBean(ReactivePrices.class);
			assertThat(prices.read(region).block(java.time.Duration.ofSeconds(20))).isEqualTo("read lock held");
			assertThat(prices.write(region).block(java.time.Duration.ofSeconds(20))).isEqualTo("write lock held");
			assertThat(prices.inTurn(region).block(java.time.Duration.ofSeconds(20))).isEqualTo("fair lock held");
			RedisLockClient client = context.getBean(RedisLockClient.class);
			assertThat(client.getReadWriteLock("prices:" + region).readLock().isLocked()).isFalse();
		});
	}

	@Test
	void aFairMethodWithHoldAtLeastKeepsTheFairLockTakenForNobodyUntilTheMinimumHasPassed() {
		run((context) -> {
			String region = unique();
			Prices prices = context.getBean(Prices.class);
			RedisLock fair = context.getBean(RedisLockClient.class).getFairLock("prices:" + region);
			long start = System.nanoTime();
			assertThat(prices.publishInTurnOncePerSecond(region)).isEqualTo("fair prices:" + region);
			assertThat(fair.isLocked()).isTrue();
			assertThat(fair.isHeldByCurrentThread()).isFalse();
			org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(5)).until(() -> !fair.isLocked());
			assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
				.isGreaterThanOrEqualTo(java.time.Duration.ofMillis(950));
		});
	}

	@Test
	void aWriteMethodWithHoldAtLeastStartsAndKeepsReadersAndWritersOutUntilTheMinimumHasPassed() {
		run((context) -> {
			String region = unique();
			Prices prices = context.getBean(Prices.class);
			long start = System.nanoTime();
			assertThat(prices.writeOncePerSecond(region)).isEqualTo("write prices:" + region);
			assertNotBeforeTheSecond(start, () -> prices.readNow(region));
			assertNotBeforeTheSecond(start, () -> prices.writeNow(region));
			org.awaitility.Awaitility.await()
				.atMost(java.time.Duration.ofSeconds(10))
				.ignoreException(LockNotAcquiredException.class)
				.until(() -> prices.readNow(region) != null);
			assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
				.isGreaterThanOrEqualTo(java.time.Duration.ofSeconds(1));
		});
	}

	@Test
	void aReadMethodWithHoldAtLeastStartsAndKeepsWritersOutButNotReadersUntilTheMinimumHasPassed() {
		run((context) -> {
			String region = unique();
			Prices prices = context.getBean(Prices.class);
			long start = System.nanoTime();
			assertThat(prices.readOncePerSecond(region)).isEqualTo("read prices:" + region);
			assertThat(prices.readNow(region)).isEqualTo("read prices:" + region);
			assertNotBeforeTheSecond(start, () -> prices.writeNow(region));
			org.awaitility.Awaitility.await()
				.atMost(java.time.Duration.ofSeconds(10))
				.ignoreException(LockNotAcquiredException.class)
				.until(() -> prices.writeNow(region) != null);
			assertThat(java.time.Duration.ofNanos(System.nanoTime() - start))
				.isGreaterThanOrEqualTo(java.time.Duration.ofSeconds(1));
		});
	}

	// a call that got the lock must have come a second after the one that kept it started
	private static void assertNotBeforeTheSecond(long start, java.util.function.Supplier<String> call) {
		try {
			call.get();
		}
		catch (LockNotAcquiredException ex) {
			return;
		}
		assertThat(java.time.Duration.ofNanos(System.nanoTime() - start)).as("got the lock before the minimum")
			.isGreaterThanOrEqualTo(java.time.Duration.ofSeconds(1));
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
		Prices prices(RedisLockClient client) {
			return new Prices(client);
		}

		@Bean
		Rebalancer rebalancer(Prices prices) {
			return new Rebalancer(prices);
		}

		@Bean
		AsyncPrices asyncPrices() {
			return new AsyncPrices();
		}

		@Bean
		ReactivePrices reactivePrices(RedisLockClient client) {
			return new ReactivePrices(client);
		}

	}

	static class Prices {

		private final RedisLockClient client;

		private volatile String heldInside;

		Prices(RedisLockClient client) {
			this.client = client;
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ)
		public boolean read(String region, CyclicBarrier together) {
			this.heldInside = held(region);
			try {
				together.await(10, TimeUnit.SECONDS);
				return true;
			}
			catch (Exception ex) {
				throw new IllegalStateException("The other reader did not get in", ex);
			}
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ, waitTime = "0")
		public String readNow(String region) {
			return held(region);
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE)
		public void write(String region, CountDownLatch inside, CountDownLatch leave) {
			inside.countDown();
			try {
				leave.await(20, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.FAIR, waitTime = "20s")
		public String publishInTurn(String region) {
			String name = "prices:" + region;
			return this.client.getFairLock(name).isHeldByCurrentThread() && !this.client.getLock(name).isLocked()
					? "fair " + name : "not the fair lock";
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.FAIR, holdAtLeast = "1s")
		public String publishInTurnOncePerSecond(String region) {
			return publishInTurn(region);
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE, waitTime = "0", holdAtLeast = "1s")
		public String writeOncePerSecond(String region) {
			return writeNow(region);
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ, waitTime = "0", holdAtLeast = "1s")
		public String readOncePerSecond(String region) {
			return held(region);
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE, waitTime = "0")
		public String writeNow(String region) {
			return this.client.getReadWriteLock("prices:" + region).writeLock().isHeldByCurrentThread()
					? "write prices:" + region : "not held";
		}

		// read through the proxy, which has no state of its own
		public String heldInside() {
			return this.heldInside;
		}

		// which lock of the name the calling thread holds
		private String held(String region) {
			String name = "prices:" + region;
			boolean read = this.client.getReadWriteLock(name).readLock().isHeldByCurrentThread();
			boolean exclusive = this.client.getLock(name).isHeldByCurrentThread();
			return (read && !exclusive) ? "read " + name : "not the read lock";
		}

	}

	static class Rebalancer {

		private final Prices prices;

		Rebalancer(Prices prices) {
			this.prices = prices;
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE)
		public String writeThenRead(String region) {
			return this.prices.readNow(region);
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ)
		public String readThenWrite(String region) {
			return this.prices.writeNow(region);
		}

	}

	static class ReactivePrices {

		private final RedisLockClient client;

		ReactivePrices(RedisLockClient client) {
			this.client = client;
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ)
		public reactor.core.publisher.Mono<String> read(String region) {
			return reactor.core.publisher.Mono
				.fromCallable(() -> this.client.getReadWriteLock("prices:" + region).readLock().isLocked()
						? "read lock held" : "not held");
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE)
		public reactor.core.publisher.Mono<String> write(String region) {
			return reactor.core.publisher.Mono
				.fromCallable(() -> this.client.getReadWriteLock("prices:" + region).writeLock().isLocked()
						? "write lock held" : "not held");
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.FAIR)
		public reactor.core.publisher.Mono<String> inTurn(String region) {
			return reactor.core.publisher.Mono.fromCallable(
					() -> this.client.getFairLock("prices:" + region).isLocked() ? "fair lock held" : "not held");
		}

	}

	static class AsyncPrices {

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.READ)
		public CompletableFuture<String> read(String region, CompletableFuture<String> result) {
			return result;
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.WRITE, waitTime = "20s")
		public CompletableFuture<String> write(String region, CompletableFuture<String> result) {
			return result;
		}

		@DistributedLock(name = "prices", key = "#region", mode = LockMode.FAIR)
		public CompletableFuture<String> inTurn(String region, CompletableFuture<String> result) {
			return result;
		}

	}

}
