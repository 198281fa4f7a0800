package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.testsupport.RedisServerExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * How waiting threads are woken: by a release message on a subscription their client
 * shares, one at a time, and by the holder's lease end when a message is lost.
 */
class WaitingTests {

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	@Test
	void waitingThreadsOfOneClientShareOneSubscriptionAndAllGetTheLockInTurn() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock();
		RedisLockClient waiting = this.clients.newClient();
		AtomicInteger acquired = new AtomicInteger();
		List<CompletableFuture<Void>> waiters = new ArrayList<>();
		for (int i = 0; i < 3; i++) {
			waiters.add(CompletableFuture.runAsync(() -> {
				RedisLock lock = waiting.getLock(name);
				lock.lock();
				acquired.incrementAndGet();
				lock.unlock();
			}, TestThreads.perTask()));
		}
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiting).waitingCount() == 3);
		assertThat(LockTestClients.inspector(waiting).subscribedCount()).isEqualTo(1);
		assertThat(redis.command("PUBSUB", "NUMSUB", "lock:{" + name + "}:released")).endsWith("\n1");
		holder.unlock();
		CompletableFuture.allOf(waiters.toArray(CompletableFuture[]::new)).get(5, TimeUnit.SECONDS);
		assertThat(acquired).hasValue(3);
	}

	@Test
	void aReleaseWakesOneWaitingThreadNotAll() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock();
		LettuceConnectionFactory factory = this.clients.newConnectionFactory();
		List<String> commands = LockTestClients.recordCommands(factory);
		CountDownLatch firstAcquired = new CountDownLatch(1);
		CountDownLatch finish = new CountDownLatch(1);
		try (RedisLockClient waiting = RedisLockClient.builder(factory).build()) {
			for (int i = 0; i < 4; i++) {
				Thread thread = new Thread(() -> {
					RedisLock lock = waiting.getLock(name);
					try {
						if (lock.tryLock(Duration.ofSeconds(20), null)) {
							firstAcquired.countDown();
							finish.await();
							lock.unlock();
						}
					}
					catch (InterruptedException ex) {
						Thread.currentThread().interrupt();
					}
				});
				thread.setDaemon(true);
				thread.start();
			}
			await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiting).waitingCount() == 4);
			commands.clear();
			holder.unlock();
			assertThat(firstAcquired.await(5, TimeUnit.SECONDS)).isTrue();
			// only the woken thread tried again; the other three still sleep (for 300 ms
			// of watching, which a busy machine may take a few seconds to complete)
			await().during(Duration.ofMillis(300))
				.atMost(Duration.ofSeconds(5))
				.until(() -> commands.stream().filter("EVALSHA"::equals).count() == 1);
			assertThat(LockTestClients.inspector(waiting).waitingCount()).isEqualTo(3);
			finish.countDown();
			await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiting).waitingCount() == 0);
		}
	}

	@Test
	void aReleaseIsAnnouncedInRedisOnlyWhenAnotherClientsWaiterMarkedTheLock() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient client = this.clients.newClient();
		RedisLock lock = client.getLock(name);
		long before = publishCalls();
		for (int i = 0; i < 20; i++) {
			lock.lock();
			lock.unlock();
		}
		// nobody waited: no PUBLISH (in a Redis Cluster, one goes to every node)
		assertThat(publishCalls() - before).isZero();
		// another client's waiter marks the lock before it sleeps, and is told
		lock.lock();
		before = publishCalls();
		assertThat(LockTestClients.handOffTime(lock, this.clients.newClient())).isLessThan(Duration.ofSeconds(5));
		assertThat(publishCalls() - before).isPositive();
		// a waiter of the same client that takes no pass (it asks for a lease of its
		// own) is woken by its client: not by a message, and not at the lease's end
		lock.lock();
		CompletableFuture<Long> publishedWhenAcquired = CompletableFuture.supplyAsync(() -> {
			RedisLock waiting = client.getLock(name);
			try {
				assertThat(waiting.tryLock(Duration.ofSeconds(20), Duration.ofSeconds(5))).isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			long published = publishCalls();
			waiting.unlock();
			return published;
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		before = publishCalls();
		lock.unlock();
		// long before the holder's 30 s lease would have ended
		assertThat(publishedWhenAcquired.get(5, TimeUnit.SECONDS) - before).isZero();
		// a client that passes no lock between its owners tracks no waiters: its
		// releases are always announced
		RedisLockClient notPassing = this.clients.newClient((builder) -> builder.maxLocalPasses(0));
		RedisLock notPassingLock = notPassing.getLock(name);
		notPassingLock.lock();
		assertThat(LockTestClients.handOffTime(notPassingLock, notPassing)).isLessThan(Duration.ofSeconds(5));
		LockTestClients.assertNothingLeftBehind(client);
		LockTestClients.assertNothingLeftBehind(notPassing);
	}

	private static long publishCalls() {
		return redis.command("INFO", "commandstats")
			.lines()
			.filter((line) -> line.startsWith("cmdstat_publish:"))
			.map((line) -> line.replaceAll("^cmdstat_publish:calls=(\\d+),.*", "$1").trim())
			.mapToLong(Long::parseLong)
			.findFirst()
			.orElse(0);
	}

	@Test
	void aLostReleaseMessageCostsAtMostTheHoldersRemainingLease() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock(Duration.ofSeconds(1));
		RedisLockClient waiting = this.clients.newClient();
		CompletableFuture<Long> acquiredAt = CompletableFuture.supplyAsync(() -> {
			RedisLock lock = waiting.getLock(name);
			try {
				assertThat(lock.tryLock(Duration.ofSeconds(30), null)).isTrue();
				long at = System.nanoTime();
				lock.unlock();
				return at;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(waiting).waitingCount() == 1);
		// the lock disappears without a release message, as if the message had been lost
		long deletedAt = System.nanoTime();
		this.clients.newTemplate().delete("lock:{" + name + "}");
		long waited = TimeUnit.NANOSECONDS.toMillis(acquiredAt.get(10, TimeUnit.SECONDS) - deletedAt);
		assertThat(waited).isLessThan(2_000);
	}

}
