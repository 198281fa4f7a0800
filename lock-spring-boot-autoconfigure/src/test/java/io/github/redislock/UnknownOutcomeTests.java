package io.github.redislock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.stream.IntStream;

import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * An acquisition whose answer never came (Redis stalled, the reply lost to a cut
 * connection) may still be granted by Redis once it runs the command. The caller was told
 * it failed, so such a grant must not keep the lock from others for a whole lease: the
 * client gives it back as soon as Redis answers again. And the giving back never frees a
 * hold the thread still counts, nor another owner's lock.
 *
 * <p>
 * The clients under test have a 1 s lock command timeout on connection factories that
 * keep Lettuce's default command timeout of 60 s.
 */
class UnknownOutcomeTests {

	private static final Log logger = LogFactory.getLog(UnknownOutcomeTests.class);

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/** Lettuce's default, which alone would keep a caller waiting a minute. */
	private static final Duration LETTUCE_DEFAULT_TIMEOUT = Duration.ofSeconds(60);

	private static final Duration WAIT = Duration.ofMillis(500);

	private static final Duration LEASE = Duration.ofSeconds(30);

	/**
	 * How soon after Redis answers again another client must get the lock: a fifth of the
	 * 30 s leases, so that a lock kept until its lease ends fails, while a loaded machine
	 * (about 2.5 s seen with both cores overcommitted) passes.
	 */
	private static final Duration FREED_WITHIN = Duration.ofSeconds(6);

	@RegisterExtension
	static final RedisServerExtension redis = new RedisServerExtension();

	@RegisterExtension
	final LockTestClients clients = new LockTestClients(redis);

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	@AfterEach
	void closeResources() throws Exception {
		while (!this.resources.isEmpty()) {
			this.resources.pop().close();
		}
	}

	@Test
	void aWatchdogLeaseAcquisitionThatTimedOutInAStallDoesNotKeepTheLockFromOthers() throws Exception {
		acquisitionThatTimedOutInAStallDoesNotKeepTheLockFromOthers(null);
	}

	@Test
	void anExplicitLeaseAcquisitionThatTimedOutInAStallDoesNotKeepTheLockFromOthers() throws Exception {
		acquisitionThatTimedOutInAStallDoesNotKeepTheLockFromOthers(LEASE);
	}

	private void acquisitionThatTimedOutInAStallDoesNotKeepTheLockFromOthers(@Nullable Duration lease)
			throws Exception {
		RedisLockClient client = clientWithCommandTimeout(redis.newConnectionFactory(LETTUCE_DEFAULT_TIMEOUT));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		long tokenBefore = takeAndRelease(lock.getName());
		long grantsBefore = grants();
		redis.server().pause();
		try {
			// the acquire script reaches Redis, which will run it once it goes on
			assertFailsWithinWaitPlusCommandTimeout(lock, lease);
			assertNotHeld(lock);
		}
		finally {
			redis.server().resume();
		}
		long resumedAt = System.nanoTime();
		assertNotHeld(lock);
		// Redis ran the failed acquisition once it went on, and granted it: a token was
		// issued after the first (tokens follow the server's clock, so they no longer
		// count grants; the highest counter tells whether one was issued since)
		await().atMost(Duration.ofSeconds(5))
			.untilAsserted(() -> assertThat(highestFencingCounter())
				.as("the highest fencing counter: a token issued since the first")
				.isGreaterThan(tokenBefore));
		long granted = highestFencingCounter();
		long tokenAfter = assertAnotherClientGetsItSoonAfter(lock, resumedAt, "Redis resumed");
		assertThat(tokenAfter).as("the next holder's token").isGreaterThan(granted);
		assertThat(grants() - grantsBefore).as("acquisitions Redis granted since the first, the failed one among them")
			.isEqualTo(2);
		assertSettled(client, lock);
		assertNotHeld(lock);
	}

	@ParameterizedTest(name = "{0}")
	@ValueSource(strings = { "read", "write", "fair" })
	void anAcquisitionOfAnotherKindThatTimedOutInAStallDoesNotKeepTheLockFromOthers(String kind) throws Exception {
		RedisLockClient client = clientWithCommandTimeout(redis.newConnectionFactory(LETTUCE_DEFAULT_TIMEOUT));
		String name = LockTestClients.uniqueName();
		RedisLock lock = lockOfKind(client, kind, name);
		// warm the kind's scripts: Redis must not load them during the stall
		lock.lock();
		lock.unlock();
		redis.server().pause();
		try {
			assertFailsWithinWaitPlusCommandTimeout(lock, null);
			assertThat(lock.isHeldByCurrentThread()).isFalse();
		}
		finally {
			redis.server().resume();
		}
		long resumedAt = System.nanoTime();
		// a writer of another client gets in: neither a grant nor a queue entry of the
		// failed acquisition is left
		RedisLock other = lockOfKind(this.clients.newClient(), "read".equals(kind) ? "write" : kind, name);
		boolean acquired = other.tryLock(FREED_WITHIN.plusSeconds(3), Duration.ofSeconds(5));
		Duration took = Duration.ofNanos(System.nanoTime() - resumedAt);
		logger.info("After a stalled " + kind + " acquisition, another client " + (acquired ? "got" : "did not get")
				+ " the lock " + took.toMillis() + " ms after Redis resumed");
		assertThat(acquired).isTrue();
		assertThat(took).isLessThan(FREED_WITHIN);
		other.unlock();
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(client).settlingCount() == 0);
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
		assertThat(redis.command("EXISTS", "lock:{" + name + "}:rw", "lock:{" + name + "}:fair",
				"lock:{" + name + "}:fair:queue", "lock:{" + name + "}:rw:writers"))
			.isEqualTo("0");
	}

	private static RedisLock lockOfKind(RedisLockClient client, String kind, String name) {
		return switch (kind) {
			case "read" -> client.getReadWriteLock(name).readLock();
			case "write" -> client.getReadWriteLock(name).writeLock();
			default -> client.getFairLock(name);
		};
	}

	@Test
	void anAcquisitionWhoseReplyWasLostToACutDoesNotKeepTheLockFromOthers() throws Exception {
		FaultProxy proxy = startProxy();
		RedisLockClient client = clientWithCommandTimeout(RedisServers
			.connectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port()), LETTUCE_DEFAULT_TIMEOUT));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		// the acquire reaches Redis after the client gave up, and its reply takes as long
		proxy.latency(COMMAND_TIMEOUT.multipliedBy(2));
		assertFailsWithinWaitPlusCommandTimeout(lock, LEASE);
		await().atMost(Duration.ofSeconds(5)).until(() -> owners(lock).stream().anyMatch(ownedBy(client)));
		// Redis granted it; the reply is on its way back, and lost
		proxy.cut();
		long healedAt = System.nanoTime();
		proxy.heal();
		assertNotHeld(lock);
		assertAnotherClientGetsItSoonAfter(lock, healedAt, "network healed");
		assertSettled(client, lock);
		assertNotHeld(lock);
	}

	@Test
	void aThreadThatLocksAgainAfterItsAcquisitionTimedOutKeepsTheLock() throws Exception {
		RedisLockClient client = clientWithCommandTimeout(redis.newConnectionFactory(LETTUCE_DEFAULT_TIMEOUT));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		redis.server().pause();
		try {
			assertFailsWithinWaitPlusCommandTimeout(lock, LEASE);
			// the stall outlasts another command timeout, and the giving back of the
			// grant cannot get through it either
			await().during(COMMAND_TIMEOUT.plusMillis(200))
				.atMost(COMMAND_TIMEOUT.multipliedBy(3))
				.until(() -> LockTestClients.inspector(client).settlingCount() == 1);
		}
		finally {
			redis.server().resume();
		}
		assertThat(lock.tryLock(Duration.ofSeconds(5), LEASE)).isTrue();
		assertStillHeldOnlyByThisThread(client, lock, 1);
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void aNestedAcquisitionThatTimedOutLeavesTheOuterHoldInPlace() throws Exception {
		RedisLockClient client = clientWithCommandTimeout(redis.newConnectionFactory(LETTUCE_DEFAULT_TIMEOUT));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		lock.lock();
		redis.server().pause();
		try {
			// Redis runs the nested acquire once it goes on: its count goes to 2
			assertFailsWithinWaitPlusCommandTimeout(lock, LEASE);
		}
		finally {
			redis.server().resume();
		}
		assertStillHeldOnlyByThisThread(client, lock, 1);
		// one unlock for the one hold the thread was told it has frees the lock
		lock.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void givingBackAFailedAcquisitionLeavesTheLockAnotherClientTookSinceAlone() throws Exception {
		FaultProxy proxy = startProxy();
		RedisLockClient client = clientWithCommandTimeout(RedisServers
			.connectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port()), LETTUCE_DEFAULT_TIMEOUT));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		RedisLock other = this.clients.newClient().getLock(lock.getName());
		assertThat(other.isLocked()).isFalse();
		proxy.latency(COMMAND_TIMEOUT.multipliedBy(2));
		assertFailsWithinWaitPlusCommandTimeout(lock, LEASE);
		// another client takes the lock while the failed acquire is still on its way
		assertThat(other.tryLock(Duration.ZERO, LEASE)).isTrue();
		// the late acquire, then whatever gives it back, reach Redis and find the other
		// client's lock
		proxy.heal();
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(client).settlingCount() == 0);
		assertThat(other.isHeldByCurrentThread()).isTrue();
		assertThat(owners(lock)).hasSize(1).noneMatch(ownedBy(client));
		assertThat(Long.parseLong(redis.command("PTTL", key(lock)))).isGreaterThan(LEASE.minusSeconds(10).toMillis());
		assertNotHeld(lock);
		other.unlock();
		assertThat(lock.isLocked()).isFalse();
	}

	@Test
	void anInterruptDuringAStalledAcquisitionWaitsForTheAnswerAndKeepsTheGrant() throws Exception {
		RedisLockClient client = clientWithCommandTimeout(redis.newConnectionFactory(LETTUCE_DEFAULT_TIMEOUT));
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		redis.server().pause();
		AtomicReference<Thread> caller = new AtomicReference<>();
		CompletableFuture<String> outcome;
		try {
			outcome = CompletableFuture.supplyAsync(() -> {
				caller.set(Thread.currentThread());
				try {
					boolean acquired = lock.tryLock(Duration.ofSeconds(5), LEASE);
					boolean interrupted = Thread.interrupted();
					int holds = lock.getHoldCount();
					if (acquired) {
						lock.unlock();
					}
					return "acquired=" + acquired + " interrupted=" + interrupted + " holds=" + holds;
				}
				catch (InterruptedException ex) {
					return "InterruptedException";
				}
			}, TestThreads.perTask());
			// the caller waits for the answer to its acquire
			await().atMost(Duration.ofSeconds(5))
				.until(() -> caller.get() != null && caller.get().getState() == Thread.State.TIMED_WAITING);
			caller.get().interrupt();
		}
		finally {
			redis.server().resume();
		}
		assertThat(outcome.get(10, TimeUnit.SECONDS)).isEqualTo("acquired=true interrupted=true holds=1");
		assertThat(lock.isLocked()).isFalse();
		assertThat(LockTestClients.inspector(client).settlingCount()).isZero();
	}

	@Test
	void aPassWhoseCheckInRedisGotNoAnswerFreesTheLockOnceRedisAnswers() throws Exception {
		RedisLockClient client = clientWithCommandTimeout(redis.newConnectionFactory(LETTUCE_DEFAULT_TIMEOUT));
		// the waiter below must wait, not fail its first subscription on a busy machine
		LockTestClients.awaitPubSub(client);
		RedisLock lock = client.getLock(LockTestClients.uniqueName());
		lock.lock();
		long holderToken = lock.fencingToken();
		CompletableFuture<Long> waiter = CompletableFuture.supplyAsync(() -> {
			RedisLock mine = client.getLock(lock.getName());
			try {
				assertThat(mine.tryLock(Duration.ofSeconds(20), null)).as("the waiter got the lock").isTrue();
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
			long token = mine.fencingToken();
			mine.unlock();
			return token;
		}, (task) -> new Thread(task).start());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		redis.server().pause();
		long resumedAt;
		try {
			// The holder took the lock alone, so no token is left for a pass: the pass
			// asks
			// Redis (pass.lua) first, which does not answer. Redis will run it once it
			// goes
			// on, and keep the lock for the run.
			long start = System.nanoTime();
			assertThatThrownBy(lock::unlock).isInstanceOf(RedisLockException.class)
				.hasMessageContaining("pass on lock '" + lock.getName() + "'")
				.hasMessageContaining("releases the lock in the background");
			assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(COMMAND_TIMEOUT.plusMillis(500));
			assertNotHeld(lock);
			assertThat(waiter).as("not passed without an answer from Redis").isNotDone();
		}
		finally {
			redis.server().resume();
			resumedAt = System.nanoTime();
		}
		long waiterToken = waiter.get(10, TimeUnit.SECONDS);
		Duration took = Duration.ofNanos(System.nanoTime() - resumedAt);
		logger.info("The waiting thread got the lock " + took.toMillis() + " ms after Redis resumed");
		assertThat(took).isLessThan(FREED_WITHIN);
		assertThat(waiterToken).isGreaterThan(holderToken);
		assertSettled(client, lock);
		LockTestClients.assertNothingLeftBehind(client);
		assertThat(lock.isLocked()).isFalse();
	}

	private static void assertFailsWithinWaitPlusCommandTimeout(RedisLock lock, @Nullable Duration lease)
			throws InterruptedException {
		long start = System.nanoTime();
		Object outcome;
		try {
			outcome = lock.tryLock(WAIT, lease);
		}
		catch (RedisLockException ex) {
			outcome = ex;
		}
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		logger.info("The acquisition without an answer from Redis returned after " + took.toMillis() + " ms: "
				+ ((outcome instanceof Exception ex) ? ex.getClass().getSimpleName() + ": " + ex.getMessage()
						: outcome));
		assertThat(outcome).satisfiesAnyOf((failure) -> assertThat(failure).isEqualTo(false),
				(failure) -> assertThat(failure).isInstanceOf(RedisLockException.class));
		assertThat(took).isLessThan(WAIT.plus(COMMAND_TIMEOUT).plusMillis(500));
	}

	/** Returns the fencing token the other client got. */
	// every slot's counter holds the last token it issued
	private static long highestFencingCounter() {
		long highest = 0;
		for (String key : redis.server().command("KEYS", "*fence:*").split("\\R")) {
			if (!key.isBlank()) {
				highest = Math.max(highest, Long.parseLong(redis.server().command("GET", key).trim()));
			}
		}
		return highest;
	}

	private long assertAnotherClientGetsItSoonAfter(RedisLock lock, long sinceNanos, String since)
			throws InterruptedException {
		RedisLock other = this.clients.newClient().getLock(lock.getName());
		boolean acquired = other.tryLock(FREED_WITHIN.plusSeconds(3), Duration.ofSeconds(5));
		Duration took = Duration.ofNanos(System.nanoTime() - sinceNanos);
		logger.info("Another client " + (acquired ? "got" : "did not get") + " the lock " + took.toMillis()
				+ " ms after " + since + (acquired ? "" : "; Redis has " + state(lock)));
		assertThat(acquired).as("another client got the lock (Redis has %s)", state(lock)).isTrue();
		assertThat(took).isLessThan(FREED_WITHIN);
		long token = other.fencingToken();
		other.unlock();
		return token;
	}

	/**
	 * How many grants this test's Redis made: each sets its slot's fencing clock once
	 * (tokens follow the server's clock, so their differences count nothing).
	 */
	private static long grants() {
		return redis.command("INFO", "commandstats")
			.lines()
			.filter((line) -> line.startsWith("cmdstat_set:calls="))
			.mapToLong((line) -> Long.parseLong(line.substring("cmdstat_set:calls=".length(), line.indexOf(','))))
			.findFirst()
			.orElse(0);
	}

	/** Takes and releases the lock from another client; returns the token it got. */
	private long takeAndRelease(String name) {
		RedisLock other = this.clients.newClient().getLock(name);
		assertThat(other.tryLock()).isTrue();
		long token = other.fencingToken();
		other.unlock();
		return token;
	}

	private static void assertSettled(RedisLockClient client, RedisLock lock) {
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(client).settlingCount() == 0);
		await().atMost(Duration.ofSeconds(5)).until(() -> owners(lock).stream().noneMatch(ownedBy(client)));
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
	}

	/**
	 * Checks that the calling thread holds the lock with the given count and keeps it
	 * after any giving back of its failed acquisition is over, and that no other client
	 * can take it.
	 */
	private void assertStillHeldOnlyByThisThread(RedisLockClient client, RedisLock lock, int holds) {
		await().pollInSameThread()
			.during(Duration.ofMillis(500))
			.atMost(Duration.ofSeconds(2))
			.untilAsserted(() -> assertThat(lock.getHoldCount()).isEqualTo(holds));
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(client).settlingCount() == 0);
		assertThat(lock.isHeldByCurrentThread()).isTrue();
		assertThat(lock.getHoldCount()).isEqualTo(holds);
		assertThat(owners(lock)).hasSize(1).allMatch(ownedBy(client));
		assertThat(this.clients.newClient().getLock(lock.getName()).tryLock()).isFalse();
	}

	private static void assertNotHeld(RedisLock lock) {
		assertThat(lock.isHeldByCurrentThread()).isFalse();
		assertThat(lock.getHoldCount()).isZero();
	}

	/**
	 * The owner fields of the lock's hash in Redis
	 * ({@code <client id>:<thread or handle>}; {@code token}, {@code client} and
	 * {@code contended} name no owner).
	 */
	private static List<String> owners(RedisLock lock) {
		List<String> fieldsAndValues = Arrays.asList(redis.command("HGETALL", key(lock)).split("\n"));
		return IntStream.range(0, fieldsAndValues.size())
			.filter((i) -> i % 2 == 0)
			.mapToObj(fieldsAndValues::get)
			.filter((field) -> field.contains(":"))
			.toList();
	}

	private static Predicate<String> ownedBy(RedisLockClient client) {
		return LockTestClients.inspector(client)::isOwnedHere;
	}

	private static String state(RedisLock lock) {
		return "HGETALL " + redis.command("HGETALL", key(lock)).replace('\n', ' ') + ", PTTL "
				+ redis.command("PTTL", key(lock));
	}

	private static String key(RedisLock lock) {
		return "lock:{" + lock.getName() + "}";
	}

	/**
	 * A client with a 1 s lock command timeout on the given factory, with its connection
	 * open, so that a command sent during a stall reaches Redis.
	 */
	private RedisLockClient clientWithCommandTimeout(LettuceConnectionFactory factory) {
		this.resources.push(factory::destroy);
		RedisLockClient client = RedisLockClient.builder(factory).commandTimeout(COMMAND_TIMEOUT).build();
		this.resources.push(client);
		// the first calls connect and load the lock script: on a busy machine that can
		// take longer than the 1 s under test
		LockTestClients.awaitConnected(client);
		RedisLock warmUp = client.getLock(LockTestClients.uniqueName());
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			boolean locked = warmUp.tryLock();
			if (locked) {
				warmUp.unlock();
			}
			return locked;
		});
		return client;
	}

	private FaultProxy startProxy() {
		FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port());
		this.resources.push(proxy);
		return proxy;
	}

}
