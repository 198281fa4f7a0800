package io.github.redislock.autoconfigure.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.RedisReadWriteLock;
import io.github.redislock.TestThreads;
import io.github.redislock.autoconfigure.RedisLockTestContexts;
import io.github.redislock.annotation.LockMode;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.FencingCounterDescriptor;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.HeldLockDescriptor;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.HolderDescriptor;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.KindDescriptor;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.LockDescriptor;
import io.github.redislock.autoconfigure.actuate.LocksEndpoint.LocksDescriptor;
import io.github.redislock.internal.LockSpec;
import io.github.redislock.internal.LockType;
import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The {@code locks} endpoint: created only when exposed, read-only unless forced release
 * is switched on, and showing what this instance holds and waits for.
 */
class LocksEndpointTests {

	private static final long FIVE_SECONDS_MICROS = TimeUnit.SECONDS.toMicros(5);

	private static final long TEN_MINUTES_MICROS = TimeUnit.MINUTES.toMicros(10);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisLockAndObservability())
		.withPropertyValues(RedisLockTestContexts.redisProperties(redis));

	@Test
	void theEndpointExistsOnlyWhenExposed() {
		this.runner.run((context) -> assertThat(context).doesNotHaveBean(LocksEndpoint.class));
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.run((context) -> assertThat(context).hasSingleBean(LocksEndpoint.class)
				.doesNotHaveBean(ReleasingLocksEndpoint.class));
	}

	@Test
	void forcedReleaseIsASeparateOptIn() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.force-release=true")
			.run((context) -> assertThat(context).hasSingleBean(ReleasingLocksEndpoint.class));
	}

	@Test
	void withoutActuatorThereIsNoEndpointAndTheClientWorks() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks")
			.withClassLoader(new FilteredClassLoader(Endpoint.class))
			.run((context) -> assertThat(context).hasNotFailed()
				.doesNotHaveBean(LocksEndpoint.class)
				.hasSingleBean(RedisLockClient.class));
	}

	@Test
	void showsTheLocksThisInstanceHoldsAndWaitsFor() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			RedisLockClient client = context.getBean(RedisLockClient.class);
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			Instant before = Instant.now();
			RedisLock order = client.getLock("order:42");
			order.lock();
			order.lock();
			RedisLock report = client.getLock("report");
			report.lock(Duration.ofMinutes(1));
			CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
				RedisLock lock = client.getLock("order:42");
				try {
					boolean acquired = lock.tryLock(Duration.ofSeconds(10), null);
					lock.unlock();
					return acquired;
				}
				catch (InterruptedException ex) {
					throw new IllegalStateException(ex);
				}
			}, TestThreads.perTask());
			await().atMost(Duration.ofSeconds(5)).until(() -> !endpoint.locks().waiting().isEmpty());
			LocksDescriptor locks = endpoint.locks();
			assertThat(locks.waiting()).containsExactly(java.util.Map.entry("order:42", 1));
			assertThat(locks.redisError()).isNull();
			assertThat(locks.held()).extracting(HeldLockDescriptor::name).containsExactly("order:42", "report");
			HeldLockDescriptor held = locks.held().get(0);
			assertThat(held.key()).isEqualTo("lock:{order:42}");
			assertThat(held.thread()).isEqualTo(Thread.currentThread().getName());
			assertThat(held.holdCount()).isEqualTo(2);
			assertThat(Instant.parse(held.heldSince())).isBetween(before.minusMillis(1), Instant.now());
			assertThat(held.watchdog()).isTrue();
			assertThat(held.leaseMs()).isEqualTo(30_000);
			assertThat(held.remainingLeaseMs()).isBetween(1L, 30_000L);
			assertThat(held.fencingToken()).isEqualTo(order.fencingToken());
			assertThat(locks.held().get(1).watchdog()).isFalse();
			assertThat(locks.held().get(1).leaseMs()).isEqualTo(60_000);
			order.unlock();
			order.unlock();
			report.unlock();
			assertThat(waiter.get(10, TimeUnit.SECONDS)).isTrue();
			assertThat(endpoint.locks().held()).isEmpty();
		});
	}

	@Test
	void showsHandlesAndAsynchronousWaiters() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			RedisLockClient client = context.getBean(RedisLockClient.class);
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			LockHandle handle = client.acquire("invoice:9", Duration.ZERO, Duration.ofMinutes(1));
			CompletableFuture<LockHandle> waiter = client.acquireAsync("invoice:9", Duration.ofSeconds(10), null);
			await().atMost(Duration.ofSeconds(5)).until(() -> !endpoint.locks().waiting().isEmpty());
			LocksDescriptor locks = endpoint.locks();
			assertThat(locks.waiting()).containsExactly(java.util.Map.entry("invoice:9", 1));
			assertThat(locks.held()).singleElement().satisfies((held) -> {
				assertThat(held.handle()).isTrue();
				assertThat(held.owner()).matches(".+:h\\d+");
				assertThat(held.holdCount()).isOne();
				assertThat(held.watchdog()).isFalse();
				assertThat(held.fencingToken()).isEqualTo(handle.fencingToken());
			});
			assertThat(endpoint.lock(new String[] { "invoice:9" }).holders()).singleElement()
				.satisfies((holder) -> assertThat(holder.owner()).isEqualTo(locks.held().get(0).owner()));
			CompletableFuture.runAsync(handle::release, TestThreads.perTask()).join();
			LockHandle next = waiter.join();
			assertThat(endpoint.locks().held()).singleElement()
				.satisfies((held) -> assertThat(held.fencingToken()).isEqualTo(next.fencingToken()));
			next.release();
			assertThat(endpoint.locks().held()).isEmpty();
		});
	}

	@Test
	void withRedisDownTheEndpointStillShowsWhatThisInstanceHoldsAndSaysWhyTheLeasesAreMissing() {
		// the endpoint's read of the stopped Redis waits out the command timeout: a short
		// one, once the client has connected (which may take longer on a busy machine)
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=locks", "redis-lock.command-timeout=1s")
			.run((context) -> {
				RedisLock lock = context.getBean(RedisLockClient.class).getLock("held-while-down");
				await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> !lock.isLocked());
				lock.lock(Duration.ofMinutes(1));
				redis.server().stop();
				LocksDescriptor locks = context.getBean(LocksEndpoint.class).locks();
				assertThat(locks.held()).singleElement().satisfies((held) -> {
					assertThat(held.name()).isEqualTo("held-while-down");
					assertThat(held.remainingLeaseMs()).isNull();
				});
				assertThat(locks.redisError()).startsWith("Could not read the remaining leases: ");
			});
	}

	@Test
	void describesOneLockWhoeverHoldsIt() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			LettuceConnectionFactory otherConnection = redis.newConnectionFactory();
			try (RedisLockClient otherInstance = RedisLockClient.builder(otherConnection).build()) {
				RedisLock elsewhere = otherInstance.getLock("order:7");
				elsewhere.lock(Duration.ofSeconds(20));
				LockDescriptor held = endpoint.lock(new String[] { "order:7" });
				assertThat(held.locked()).isTrue();
				assertThat(held.key()).isEqualTo("lock:{order:7}");
				assertThat(held.holders()).singleElement().satisfies((holder) -> {
					assertThat(holder.thisInstance()).isFalse();
					assertThat(holder.holdCount()).isOne();
					assertThat(holder.owner()).endsWith(":" + Thread.currentThread().getId());
				});
				assertThat(held.fencingToken()).isEqualTo(elsewhere.fencingToken());
				assertThat(held.remainingLeaseMs()).isBetween(1L, 20_000L);
				assertThat(held.heldHere()).isEmpty();
				elsewhere.unlock();
			}
			finally {
				otherConnection.destroy();
			}
			RedisLock here = context.getBean(RedisLockClient.class).getLock("order:8");
			here.lock();
			LockDescriptor heldHere = endpoint.lock(new String[] { "order:8" });
			assertThat(heldHere.holders()).singleElement()
				.satisfies((holder) -> assertThat(holder.thisInstance()).isTrue());
			assertThat(heldHere.heldHere()).singleElement()
				.satisfies((hold) -> assertThat(hold.thread()).isEqualTo(Thread.currentThread().getName()));
			here.unlock();
			LockDescriptor free = endpoint.lock(new String[] { "order:8" });
			assertThat(free.locked()).isFalse();
			assertThat(free.holders()).isEmpty();
			assertThat(free.fencingToken()).isNull();
			assertThat(free.remainingLeaseMs()).isNull();
		});
	}

	@Test
	void showsTheFencingCounterOfANameAndHowFarItIsAheadOfTheServersClock() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			String[] name = { "ledger:5" };
			// another test's name may share the slot, and so the counter
			String key = endpoint.lock(name).fencingCounter().key();
			assertThat(key).startsWith("lock:fence:{");
			redis.command("DEL", key);
			assertThat(endpoint.lock(name).fencingCounter()).isEqualTo(new FencingCounterDescriptor(key, null, null));
			RedisLock exclusive = client.getLock("ledger:5");
			exclusive.lock();
			long token = exclusive.fencingToken();
			exclusive.unlock();
			FencingCounterDescriptor afterAGrant = endpoint.lock(name).fencingCounter();
			assertThat(afterAGrant.value()).isEqualTo(token);
			// the token was the server's clock then: the clock has passed it since
			assertThat(afterAGrant.leadMicros()).isNotPositive().isGreaterThan(-TEN_MINUTES_MICROS);
			// a counter 5 s ahead, as blocks reserved faster than the clock moves or a
			// clock that stepped back leave it
			redis.command("SET", key, Long.toString(serverMicros() + FIVE_SECONDS_MICROS));
			FencingCounterDescriptor ahead = endpoint.lock(name).fencingCounter();
			assertThat(ahead.leadMicros()).isPositive().isLessThanOrEqualTo(FIVE_SECONDS_MICROS);
			// every kind of the name draws from it
			RedisLock fair = client.getFairLock("ledger:5");
			fair.lock();
			try {
				assertThat(fair.fencingToken()).isEqualTo(ahead.value() + 1);
				assertThat(endpoint.lock(name).fencingCounter().value()).isEqualTo(fair.fencingToken());
			}
			finally {
				fair.unlock();
			}
		});
	}

	private static long serverMicros() {
		String[] time = redis.command("TIME").split("\n");
		return Long.parseLong(time[0].trim()) * 1_000_000 + Long.parseLong(time[1].trim());
	}

	@ParameterizedTest
	@EnumSource(LockMode.class)
	void showsALockOfEveryKindHeldHereAsTakenWithItsLeaseInOneView(LockMode mode) {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			String name = "view:" + mode;
			RedisLock lock = ((LockSpec.ThreadOwned) LockSpec.of(LockType.valueOf(mode.name()))).lock(client, name);
			lock.lock(Duration.ofSeconds(30));
			try {
				LockDescriptor view = endpoint.lock(new String[] { name });
				assertThat(view.locked()).isTrue();
				HeldLockDescriptor held = view.heldHere().get(0);
				assertThat(view.heldHere()).singleElement()
					.satisfies((hold) -> assertThat(hold.remainingLeaseMs()).isBetween(1L, 30_000L));
				// the kind that holds it shows the same lease, key and holder
				assertThat(view.kinds()).singleElement().satisfies((kind) -> {
					assertThat(kind.locked()).isTrue();
					assertThat(kind.key()).isEqualTo(held.key());
					assertThat(kind.remainingLeaseMs()).isBetween(1L, 30_000L);
					assertThat(kind.fencingToken()).isEqualTo(held.fencingToken());
					assertThat(kind.holders()).singleElement().satisfies((holder) -> {
						assertThat(holder.owner()).isEqualTo(held.owner());
						assertThat(holder.thisInstance()).isTrue();
					});
				});
				assertThat(endpoint.locks().held()).singleElement()
					.satisfies((hold) -> assertThat(hold.remainingLeaseMs()).isBetween(1L, 30_000L));
			}
			finally {
				lock.unlock();
			}
			LockDescriptor free = endpoint.lock(new String[] { name });
			assertThat(free.locked()).isFalse();
			assertThat(free.kinds()).isEmpty();
		});
	}

	@Test
	void aLockKeptForNobodyAfterHoldAtLeastIsTakenWithoutAHolder() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			RedisLock exclusive = client.getLock("report:3");
			exclusive.lock();
			exclusive.unlock(Duration.ofSeconds(20));
			RedisLock fair = client.getFairLock("report:3");
			fair.lock();
			fair.unlock(Duration.ofSeconds(20));
			LockDescriptor kept = endpoint.lock(new String[] { "report:3" });
			assertThat(kept.locked()).isTrue();
			assertThat(kept.keptForNobody()).isTrue();
			assertThat(kept.holders()).isEmpty();
			assertThat(kept.remainingLeaseMs()).isBetween(1L, 20_000L);
			assertThat(kept.kinds()).filteredOn((kind) -> kind.mode().equals("fair"))
				.singleElement()
				.satisfies((keptFair) -> {
					assertThat(keptFair.keptForNobody()).isTrue();
					assertThat(keptFair.holders()).isEmpty();
					assertThat(keptFair.remainingLeaseMs()).isBetween(1L, 20_000L);
				});
			exclusive.forceUnlock();
			fair.forceUnlock();
			LockDescriptor free = endpoint.lock(new String[] { "report:3" });
			assertThat(free.locked()).isFalse();
			assertThat(free.keptForNobody()).isFalse();
			assertThat(free.kinds()).isEmpty();
		});
	}

	@Test
	void theHoldersOfANameAreEveryKindsHoldersNotOnlyTheExclusiveLocks() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			String read = "holders:read:" + UUID.randomUUID();
			String permit = "holders:permit:" + UUID.randomUUID();
			RedisLock reader = client.getReadWriteLock(read).readLock();
			reader.lock();
			try (LockHandle handle = client.getSemaphore(permit, 3)
				.tryAcquire(Duration.ofSeconds(5), null)
				.orElseThrow()) {
				assertThat(endpoint.lock(new String[] { read }).holders()).as("a reader holds it")
					.singleElement()
					.satisfies((holder) -> assertThat(holder.thisInstance()).isTrue());
				assertThat(endpoint.lock(new String[] { permit }).holders()).as("a permit holder holds it")
					.singleElement()
					.satisfies((holder) -> assertThat(holder.thisInstance()).isTrue());
			}
			finally {
				reader.unlock();
			}
		});
	}

	@Test
	void describesTheReadWriteAndFairLocksOfANameWithTheirReadersWritersAndQueue() {
		this.runner.withPropertyValues("management.endpoints.web.exposure.include=locks").run((context) -> {
			LocksEndpoint endpoint = context.getBean(LocksEndpoint.class);
			RedisLockClient client = context.getBean(RedisLockClient.class);
			LettuceConnectionFactory otherConnection = redis.newConnectionFactory();
			try (RedisLockClient otherInstance = RedisLockClient.builder(otherConnection).build()) {
				RedisReadWriteLock here = client.getReadWriteLock("stock:1");
				here.readLock().lock();
				CompletableFuture<LockHandle> writer = otherInstance.getReadWriteLock("stock:1")
					.acquireWriteAsync(Duration.ofSeconds(20), null);
				RedisLock fairElsewhere = otherInstance.getFairLock("stock:1");
				CompletableFuture.runAsync(() -> fairElsewhere.lock(Duration.ofSeconds(20)), TestThreads.perTask())
					.join();
				CompletableFuture<Boolean> fairWaiter = CompletableFuture.supplyAsync(() -> {
					try {
						return client.getFairLock("stock:1").tryLock(20, TimeUnit.SECONDS);
					}
					catch (InterruptedException ex) {
						throw new IllegalStateException(ex);
					}
				}, TestThreads.perTask());
				await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
					LockDescriptor lock = endpoint.lock(new String[] { "stock:1" });
					assertThat(lock.locked()).as("a lock of the name, of any kind").isTrue();
					assertThat(lock.holders()).as("every kind's: the reader here, the fair holder elsewhere")
						.extracting(HolderDescriptor::thisInstance)
						.containsExactlyInAnyOrder(true, false);
					assertThat(lock.kinds()).extracting(KindDescriptor::mode).containsExactly("readWrite", "fair");
					assertThat(lock.kinds().get(0)).satisfies((readWrite) -> {
						assertThat(readWrite.key()).isEqualTo("lock:{stock:1}:rw");
						assertThat(readWrite.holders()).singleElement()
							.satisfies((reader) -> assertThat(reader.thisInstance()).isTrue());
						assertThat(readWrite.details()).containsKey("readers")
							.doesNotContainKey("writer")
							.containsEntry("writeHolds", 0);
						assertThat(readWrite.waiting()).as("writers waiting").isOne();
						assertThat(readWrite.fencingToken()).as("the read phase's").isPositive();
					});
					assertThat(lock.kinds().get(1)).satisfies((fair) -> {
						assertThat(fair.holders()).singleElement()
							.satisfies((holder) -> assertThat(holder.thisInstance()).isFalse());
						assertThat(fair.waiting()).as("its queue").isOne();
					});
					assertThat(lock.heldHere()).extracting(HeldLockDescriptor::mode).containsExactly("read");
				});
				assertThat(endpoint.locks().held()).extracting(HeldLockDescriptor::mode).containsExactly("read");
				here.readLock().unlock();
				writer.get(10, TimeUnit.SECONDS).release();
				fairElsewhere.forceUnlock();
				assertThat(fairWaiter.get(10, TimeUnit.SECONDS)).isTrue();
			}
			finally {
				otherConnection.destroy();
			}
		});
	}

	@Test
	void aForcedReleaseFreesTheLockAndItsHolderLearnsItLostIt() {
		this.runner
			.withPropertyValues("management.endpoints.web.exposure.include=locks",
					"management.endpoint.locks.force-release=true")
			.run((context) -> {
				RedisLock lock = context.getBean(RedisLockClient.class).getLock("stuck/job:7");
				lock.lock();
				ReleasingLocksEndpoint endpoint = context.getBean(ReleasingLocksEndpoint.class);
				assertThat(endpoint.release(new String[] { "stuck", "job:7" }))
					.isEqualTo(new ReleasingLocksEndpoint.ReleaseDescriptor("stuck/job:7", true));
				assertThat(lock.isLocked()).isFalse();
				assertThat(endpoint.release(new String[] { "stuck", "job:7" }).released()).isFalse();
				assertThatThrownBy(lock::unlock).isInstanceOf(LeaseExpiredException.class);
			});
	}

}
