package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.internal.LockType;
import io.github.redislock.testsupport.RedisServerExtension;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * The least a Redis ACL user needs, as the README lists it: with exactly these commands,
 * keys and channels a client locks, waits, renews, extends, force-releases, reads state
 * for the endpoint and recovers a flushed script cache; with any one command less some
 * operation fails with a {@link RedisLockException} that quotes Redis' NOPERM naming it.
 */
@ExtendWith(OutputCaptureExtension.class)
class AclTests {

	/** The commands of the README's ACL rule, for the default key prefix. */
	static final List<String> COMMANDS = List.of("evalsha", "eval", "hset", "hget", "hmget", "hexists", "hsetnx",
			"hincrby", "hgetall", "hkeys", "exists", "pttl", "pexpire", "time", "get", "set", "del", "hdel", "publish",
			"subscribe", "unsubscribe");

	/** What the README adds to the rule for read/write locks. */
	static final List<String> READ_WRITE_COMMANDS = List.of("zadd", "zscore", "zrange", "zrangebyscore", "zrem",
			"zremrangebyscore", "zcard");

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@Test
	void aUserWithExactlyTheDocumentedRuleCanDoEverything() throws Exception {
		createUser("locker", COMMANDS);
		try (LockTestClients clients = clientsOf("locker")) {
			everything(clients);
		}
	}

	@ParameterizedTest(name = "without {0}")
	@MethodSource("commands")
	void oneCommandLessFailsWithAClearError(String missing, CapturedOutput output) {
		List<String> commands = new ArrayList<>(COMMANDS);
		commands.remove(missing);
		String user = "without-" + missing;
		createUser(user, commands);
		try (LockTestClients clients = clientsOf(user)) {
			Throwable failure = catchThrowable(() -> everything(clients));
			if (failure instanceof RedisLockException) {
				assertThat(failure).hasMessageContaining("NOPERM").hasMessageContaining("'" + missing + "'");
			}
			else {
				// what runs in the background (the watchdog's renewals, leaving a
				// subscription) does not throw at the caller: its warning says why
				assertThat(failure).isInstanceOf(ConditionTimeoutException.class);
				assertThat(output).contains("NOPERM").contains("'" + missing + "'");
			}
		}
	}

	static Stream<String> commands() {
		return COMMANDS.stream();
	}

	@Test
	void aUserWithTheReadWriteAdditionsCanUseReadWriteLocks() throws Exception {
		List<String> commands = new ArrayList<>(COMMANDS);
		commands.addAll(READ_WRITE_COMMANDS);
		createUser("rw-locker", commands);
		try (LockTestClients clients = clientsOf("rw-locker")) {
			everythingReadWrite(clients);
		}
	}

	@ParameterizedTest(name = "without {0}")
	@MethodSource("readWriteCommands")
	void aReadWriteLockWithOneCommandLessFailsWithAClearError(String missing, CapturedOutput output) {
		List<String> commands = new ArrayList<>(COMMANDS);
		commands.addAll(READ_WRITE_COMMANDS);
		commands.remove(missing);
		String user = "rw-without-" + missing;
		createUser(user, commands);
		try (LockTestClients clients = clientsOf(user)) {
			Throwable failure = catchThrowable(() -> everythingReadWrite(clients));
			if (failure instanceof RedisLockException) {
				assertThat(failure).hasMessageContaining("NOPERM").hasMessageContaining("'" + missing + "'");
			}
			else {
				// a waiting writer that cannot take its mark back still returns (what
				// comes after may wait for the mark to expire): its warning says why
				if (failure != null) {
					assertThat(failure).isInstanceOf(ConditionTimeoutException.class);
				}
				assertThat(output).contains("NOPERM").contains("'" + missing + "'");
			}
		}
	}

	static Stream<String> readWriteCommands() {
		return READ_WRITE_COMMANDS.stream();
	}

	// every script of the read/write lock: each side taken, waited for, renewed and
	// released; a dead reader purged
	private static void everythingReadWrite(LockTestClients clients) throws Exception {
		RedisLockClient holder = clients.newClient(Duration.ofMillis(600));
		RedisLockClient other = clients.newClient();
		String name = LockTestClients.uniqueName();
		RedisReadWriteLock lock = holder.getReadWriteLock(name);
		lock.readLock().lock(Duration.ofMillis(200));
		lock.readLock().unlock();
		lock.readLock().lock();
		// a nested lease longer than the watchdog's: lengthened in Redis
		lock.readLock().lock(Duration.ofMinutes(1));
		lock.readLock().unlock();
		CompletableFuture<Boolean> writer = CompletableFuture.supplyAsync(() -> {
			RedisLock waiting = other.getReadWriteLock(name).writeLock();
			try {
				boolean acquired = waiting.tryLock(Duration.ofSeconds(10), null);
				waiting.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> writer.isDone() || LockTestClients.inspector(other).waitingCount() == 1);
		if (writer.isCompletedExceptionally()) {
			throw unwrap(writer);
		}
		// renewed by the watchdog past twice its timeout
		await().pollInSameThread()
			.during(Duration.ofMillis(1300))
			.atMost(Duration.ofSeconds(3))
			.until(() -> lock.readLock().isLocked());
		lock.readLock().unlock();
		try {
			assertThat(writer.get(10, TimeUnit.SECONDS)).as("the writer acquired the lock").isTrue();
		}
		catch (ExecutionException ex) {
			throw unwrap(writer);
		}
		lock.writeLock().lock();
		lock.writeLock().unlock();
		// a writer that gives up withdraws its mark: readers get in at once, not after it
		// ends
		lock.readLock().lock();
		assertThat(CompletableFuture
			.supplyAsync(() -> other.getReadWriteLock(name).tryAcquireWrite(Duration.ofMillis(100), null),
					TestThreads.perTask())
			.get(10, TimeUnit.SECONDS)).isEmpty();
		await().atMost(Duration.ofMillis(1500)).until(() -> {
			java.util.Optional<LockHandle> read = other.getReadWriteLock(name).tryAcquireRead(Duration.ZERO, null);
			read.ifPresent(LockHandle::release);
			return read.isPresent();
		});
		lock.readLock().unlock();
		assertThat(Arrays.asList(redis.command("EXISTS", "lock:{" + name + "}:rw"))).containsExactly("0");
		// the fair lock: queued, withdrawn, granted in turn
		RedisLock fair = holder.getFairLock(name);
		fair.lock();
		assertThat(CompletableFuture.supplyAsync(() -> {
			try {
				return other.getFairLock(name).tryLock(100, TimeUnit.MILLISECONDS);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask()).get(10, TimeUnit.SECONDS)).isFalse();
		fair.unlock();
		// the waiter that gave up withdraws its place in the background: on a busy
		// machine the release may come first and keep the lock for it a moment
		await().atMost(Duration.ofSeconds(10))
			.untilAsserted(() -> assertThat(Arrays
				.asList(redis.command("EXISTS", "lock:{" + name + "}:fair", "lock:{" + name + "}:fair:queue")))
				.containsExactly("0"));
	}

	private static void createUser(String user, List<String> commands) {
		List<String> rule = new ArrayList<>(
				List.of("ACL", "SETUSER", user, "reset", "on", ">secret", "~lock:*", "&lock:*", "+hello", "+auth"));
		commands.forEach((command) -> rule.add("+" + command));
		assertThat(redis.command(rule.toArray(String[]::new))).isEqualTo("OK");
	}

	private static LockTestClients clientsOf(String user) {
		return LockTestClients.on(() -> {
			RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(redis.server().host(),
					redis.server().port());
			configuration.setUsername(user);
			configuration.setPassword("secret");
			return configuration;
		}, Duration.ofSeconds(2));
	}

	// every operation of the library that talks to Redis
	private static void everything(LockTestClients clients) throws Exception {
		RedisLockClient holder = clients.newClient(Duration.ofMillis(600));
		RedisLockClient other = clients.newClient();
		LockInspector inspector = LockTestClients.inspector(holder);
		String name = LockTestClients.uniqueName();
		RedisLock lock = holder.getLock(name);
		lock.lock();
		assertThat(lock.getHoldCount()).isOne();
		assertThat(lock.isLocked()).isTrue();
		CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
			RedisLock waiting = other.getLock(name);
			try {
				boolean acquired = waiting.tryLock(Duration.ofSeconds(10), null);
				waiting.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5))
			.until(() -> waiter.isDone() || LockTestClients.inspector(other).waitingCount() == 1);
		if (waiter.isCompletedExceptionally()) {
			throw unwrap(waiter);
		}
		// renewed by the watchdog past twice its timeout
		await().pollInSameThread()
			.during(Duration.ofMillis(1300))
			.atMost(Duration.ofSeconds(3))
			.until(lock::isHeldByCurrentThread);
		assertThat(inspector.kindState(LockType.EXCLUSIVE, name).holders()).hasSize(1);
		// the locks endpoint's read of the fencing counter (GET): the grants of Redis 7
		// write and read it with SET ... GET alone
		assertThat(inspector.fencingCounter(name).value()).isPositive();
		assertThat(inspector.remainingLeaseMillis(List.of("lock:{" + name + "}")).get(0)).isPositive();
		lock.unlock();
		try {
			assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the waiter acquired the lock").isTrue();
		}
		catch (ExecutionException ex) {
			// what the waiter hit is what this user may not do
			throw unwrap(waiter);
		}
		await().alias("the waiter's subscription ends")
			.atMost(Duration.ofSeconds(5))
			.until(() -> redis.command("PUBSUB", "NUMSUB", "lock:{" + name + "}:released").endsWith("0"));
		try (LockHandle handle = holder.acquire(name + ":handle", Duration.ZERO, Duration.ofSeconds(10))) {
			assertThat(handle.extend(Duration.ofSeconds(20))).isTrue();
			assertThat(handle.remainingLease()).isPositive();
		}
		RedisLock stuck = holder.getLock(name + ":stuck");
		stuck.lock();
		assertThat(other.getLock(name + ":stuck").forceUnlock()).isTrue();
		// a restarted or failed-over Redis has lost its scripts: EVAL takes over
		redis.command("SCRIPT", "FLUSH");
		RedisLock again = holder.getLock(name + ":again");
		again.lock();
		again.unlock();
		assertThat(Arrays.asList(redis.command("EXISTS", "lock:{" + name + "}"))).containsExactly("0");
	}

	private static Exception unwrap(CompletableFuture<?> failed) {
		try {
			failed.join();
			return new IllegalStateException("not failed");
		}
		catch (CompletionException ex) {
			return (ex.getCause() instanceof RuntimeException cause) ? cause : ex;
		}
	}

}
