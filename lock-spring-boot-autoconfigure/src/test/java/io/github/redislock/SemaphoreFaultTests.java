package io.github.redislock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * The semaphore attacked where a permit could leak or be granted twice: a cancellation
 * aimed at the moment a permit is granted, Redis stalled ({@code SIGSTOP}) past the
 * command timeout while a permit is acquired or released, and a connection cut (through a
 * {@link FaultProxy}) while a permit is acquired, released or a waiter withdraws. After
 * each, the permit is held by its caller or free again, well before the lease would free
 * it, and another client gets every permit and not one more.
 */
class SemaphoreFaultTests {

	private static final Log logger = LogFactory.getLog(SemaphoreFaultTests.class);

	private static final int PERMITS = 2;

	/** The faulty client's bound on a command, the figure the faults go past. */
	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	/**
	 * The fixed lease of permits here: long, so that a permit free again within
	 * {@link #GIVEN_BACK_WITHIN} was given back, not expired.
	 */
	private static final Duration LEASE = Duration.ofSeconds(30);

	/** How soon after Redis answers again a permit the fault left in doubt is free. */
	private static final Duration GIVEN_BACK_WITHIN = Duration.ofSeconds(5);

	/** Cancellations raced against grants; more with the property. */
	private static final int RACES = Integer.getInteger("redislock.test.semaphoreCancelRaces", 200);

	/** How often a race's checks look: the default 100 ms would be most of a race. */
	private static final Duration RACE_POLL = Duration.ofMillis(5);

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
	void aCancellationRacedAgainstTheGrantLeavesThePermitHeldByTheCallerOrGivenBack() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLockClient waitingClient = this.clients.newClient();
		RedisSemaphore waiting = waitingClient.getSemaphore(name, PERMITS);
		RedisSemaphore holders = this.clients.newClient().getSemaphore(name, PERMITS);
		Map<String, Integer> outcomes = new TreeMap<>();
		ThreadLocalRandom random = ThreadLocalRandom.current();
		for (int race = 0; race < RACES; race++) {
			boolean wokenByRelease = race % 2 == 0;
			List<LockHandle> held = new ArrayList<>();
			CompletableFuture<LockHandle> acquiring;
			if (wokenByRelease) {
				// both permits taken: the grant follows a release message
				held.add(holders.acquire(Duration.ZERO, LEASE));
				held.add(holders.acquire(Duration.ZERO, LEASE));
				acquiring = waiting.acquireAsync(Duration.ofSeconds(30), LEASE);
				await().pollInterval(RACE_POLL)
					.atMost(Duration.ofSeconds(10))
					.until(() -> LockTestClients.inspector(waitingClient).waitingCount() == 1);
				held.remove(0).release();
			}
			else {
				// a permit free: the grant is the first acquire script's
				acquiring = waiting.acquireAsync(Duration.ofSeconds(30), LEASE);
			}
			// from at once to after the grant arrived, on either path
			LockSupport.parkNanos(random.nextLong(TimeUnit.MILLISECONDS.toNanos(3)));
			boolean cancelled = acquiring.cancel(false);
			String outcome = (wokenByRelease ? "after a release: " : "free: ")
					+ (cancelled ? "given back" : "held by the caller");
			outcomes.merge(outcome, 1, Integer::sum);
			if (!cancelled) {
				LockHandle permit = acquiring.join();
				assertThat(permit.isHeld()).isTrue();
				permit.release();
			}
			held.forEach(LockHandle::release);
			// nothing leaked: every permit free again, nobody waiting
			await().pollInterval(RACE_POLL).atMost(GIVEN_BACK_WITHIN).untilAsserted(() -> {
				assertThat(waiting.availablePermits()).as("free permits after %s", outcome).isEqualTo(PERMITS);
				assertThat(LockTestClients.inspector(waitingClient).waitingCount()).as("waiting after %s", outcome)
					.isZero();
			});
		}
		logger.info("Cancellations raced against grants: " + outcomes);
		assertThat(outcomes.keySet()).anyMatch((outcome) -> outcome.endsWith("given back"))
			.anyMatch((outcome) -> outcome.endsWith("held by the caller"));
		LockTestClients.assertNothingLeftBehind(waitingClient);
		assertEveryPermitAndNoMoreFor(name);
	}

	@Test
	void anAcquisitionStalledPastTheCommandTimeoutKeepsNoPermit() throws Exception {
		RedisLockClient client = faultyClient(redis.newConnectionFactory(COMMAND_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(LockTestClients.uniqueName(), PERMITS);
		redis.server().pause();
		try {
			// the acquire script reaches Redis, which runs it once it goes on
			assertFailsWithinTheCommandTimeout(() -> semaphore.tryAcquire(Duration.ZERO, LEASE));
		}
		finally {
			redis.server().resume();
		}
		assertGivenBackAndNoMoreThanThePermits(client, semaphore.getName(), "Redis resumed");
	}

	@Test
	void aReleaseStalledPastTheCommandTimeoutFreesThePermitOnceRedisAnswers() throws Exception {
		RedisLockClient client = faultyClient(redis.newConnectionFactory(COMMAND_TIMEOUT));
		RedisSemaphore semaphore = client.getSemaphore(LockTestClients.uniqueName(), PERMITS);
		LockHandle permit = semaphore.acquire(Duration.ZERO, LEASE);
		redis.server().pause();
		try {
			assertFailsWithinTheCommandTimeout(() -> {
				permit.release();
				return "released";
			});
		}
		finally {
			redis.server().resume();
		}
		assertGivenBackAndNoMoreThanThePermits(client, semaphore.getName(), "Redis resumed");
		assertThat(permit.isHeld()).isFalse();
	}

	@Test
	void anAcquisitionWhoseReplyIsCutOffKeepsNoPermit() throws Exception {
		FaultProxy proxy = startProxy();
		RedisLockClient client = faultyClient(proxy, (builder) -> {
		});
		String name = LockTestClients.uniqueName();
		RedisSemaphore semaphore = client.getSemaphore(name, PERMITS);
		// the script reaches Redis after the client gave up, and its reply takes as long
		proxy.latency(COMMAND_TIMEOUT.multipliedBy(2));
		assertFailsWithinTheCommandTimeout(() -> semaphore.tryAcquire(Duration.ZERO, LEASE));
		await().atMost(Duration.ofSeconds(10)).until(() -> holders(name).stream().anyMatch(ownedBy(client)));
		// Redis granted it; its reply is on the way, and lost
		proxy.cut();
		proxy.heal();
		assertGivenBackAndNoMoreThanThePermits(client, name, "the network healed");
	}

	@Test
	void aReleaseWhoseConnectionIsCutFreesThePermitWithinItsLease() throws Exception {
		FaultProxy proxy = startProxy();
		RedisLockClient client = faultyClient(proxy, (builder) -> {
		});
		String name = LockTestClients.uniqueName();
		RedisSemaphore semaphore = client.getSemaphore(name, PERMITS);
		LockHandle permit = semaphore.acquire(Duration.ZERO, LEASE);
		proxy.latency(COMMAND_TIMEOUT.multipliedBy(2));
		assertFailsWithinTheCommandTimeout(() -> {
			permit.release();
			return "released";
		});
		// whether the release reached Redis or not, its answer is lost
		proxy.cut();
		proxy.heal();
		assertGivenBackAndNoMoreThanThePermits(client, name, "the network healed");
		assertThat(permit.isHeld()).isFalse();
	}

	@Test
	void aReleaseThatRanAndWhoseConnectionWasCutBeforeItsReplyIsARelease() throws Exception {
		FaultProxy proxy = startProxy();
		List<LeaseLostEvent> lost = new java.util.concurrent.CopyOnWriteArrayList<>();
		RedisLockClient client = faultyClient(proxy, (builder) -> builder.leaseLostListener(lost::add));
		String name = LockTestClients.uniqueName();
		LockHandle permit = client.getSemaphore(name, PERMITS).acquire(Duration.ZERO, LEASE);
		// the release reaches Redis, which runs it; its reply is held up on the way back
		proxy.latency(COMMAND_TIMEOUT.dividedBy(4));
		CompletableFuture<Void> release = CompletableFuture.runAsync(permit::release, TestThreads.perTask());
		await().pollInterval(Duration.ofMillis(5))
			.atMost(Duration.ofSeconds(10))
			.until(() -> holders(name).stream().noneMatch(ownedBy(client)));
		// and lost: Lettuce reconnects at once and sends the release again, which finds
		// the permit gone
		proxy.cut();
		proxy.heal();
		release.get(10, TimeUnit.SECONDS);
		assertThat(permit.isHeld()).isFalse();
		assertThat(lost).as("leases reported lost").isEmpty();
		assertEveryPermitAndNoMoreFor(name);
	}

	@Test
	void aWaiterWithdrawnWhileItsConnectionIsCutLeavesNothingBehind() throws Exception {
		FaultProxy proxy = startProxy();
		RedisLockClient client = faultyClient(proxy, (builder) -> {
		});
		String name = LockTestClients.uniqueName();
		RedisSemaphore others = this.clients.newClient().getSemaphore(name, PERMITS);
		List<LockHandle> held = List.of(others.acquire(Duration.ZERO, LEASE), others.acquire(Duration.ZERO, LEASE));
		CompletableFuture<LockHandle> waiter = client.getSemaphore(name, PERMITS)
			.acquireAsync(Duration.ofSeconds(30), LEASE);
		await().atMost(Duration.ofSeconds(10)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		proxy.cut();
		assertThat(waiter.cancel(false)).isTrue();
		// a permit freed while the waiter's connections are down reaches nobody here
		held.get(0).release();
		proxy.heal();
		held.get(1).release();
		LockTestClients.assertNothingLeftBehind(client);
		assertThat(redis.command("PUBSUB", "NUMSUB", "lock:{" + name + "}:sem:released")).endsWith("0");
		assertEveryPermitAndNoMoreFor(name);
	}

	/**
	 * Waits until the faulty client settled what the fault left in doubt, then checks
	 * that another client gets every permit soon after the fault (long before the lease
	 * would have freed one) and not one more.
	 */
	private void assertGivenBackAndNoMoreThanThePermits(RedisLockClient client, String name, String since)
			throws Exception {
		long healedAt = System.nanoTime();
		assertThat(holders(name)).as("holders in Redis").hasSizeLessThanOrEqualTo(PERMITS);
		await().atMost(GIVEN_BACK_WITHIN).until(() -> LockTestClients.inspector(client).settlingCount() == 0);
		await().atMost(GIVEN_BACK_WITHIN).until(() -> holders(name).stream().noneMatch(ownedBy(client)));
		Duration took = Duration.ofNanos(System.nanoTime() - healedAt);
		logger.info("The permit left in doubt was free " + took.toMillis() + " ms after " + since);
		assertThat(LockTestClients.inspector(client).heldCount()).isZero();
		assertEveryPermitAndNoMoreFor(name);
	}

	private void assertEveryPermitAndNoMoreFor(String name) {
		RedisSemaphore other = this.clients.newClient().getSemaphore(name, PERMITS);
		List<LockHandle> permits = new ArrayList<>();
		for (int i = 0; i < PERMITS; i++) {
			permits.add(other.acquire(GIVEN_BACK_WITHIN, LEASE));
		}
		assertThat(other.tryAcquire(Duration.ZERO, LEASE)).as("a permit beyond the limit").isEmpty();
		assertThat(holders(name)).hasSize(PERMITS);
		permits.forEach(LockHandle::release);
		assertThat(other.availablePermits()).isEqualTo(PERMITS);
	}

	private static void assertFailsWithinTheCommandTimeout(ThrowingCall call) {
		long start = System.nanoTime();
		assertThatExceptionOfType(RedisLockException.class).isThrownBy(call::run);
		Duration took = Duration.ofNanos(System.nanoTime() - start);
		// the bound is the point; what a busy machine adds to it is not
		assertThat(took).isLessThan(COMMAND_TIMEOUT.plusSeconds(2));
	}

	/** The members of the semaphore's sorted set: holders and permits kept for nobody. */
	private static List<String> holders(String name) {
		return redis.command("ZRANGE", "lock:{" + name + "}:sem", "0", "-1").lines().toList();
	}

	private static java.util.function.Predicate<String> ownedBy(RedisLockClient client) {
		return LockTestClients.inspector(client)::isOwnedHere;
	}

	/**
	 * A client with a 1 s lock command timeout on the given factory, connected and with
	 * the semaphore's scripts loaded, so that a command sent during a fault reaches
	 * Redis.
	 */
	private RedisLockClient faultyClient(LettuceConnectionFactory factory) {
		return faultyClient(factory, (builder) -> {
		});
	}

	private RedisLockClient faultyClient(LettuceConnectionFactory factory,
			java.util.function.Consumer<RedisLockClient.Builder> customizer) {
		this.resources.push(factory::destroy);
		RedisLockClient.Builder builder = RedisLockClient.builder(factory).commandTimeout(COMMAND_TIMEOUT);
		customizer.accept(builder);
		RedisLockClient client = builder.build();
		this.resources.push(client);
		return warmedUp(LockTestClients.awaitConnected(client));
	}

	private RedisLockClient faultyClient(FaultProxy proxy,
			java.util.function.Consumer<RedisLockClient.Builder> customizer) {
		return warmedUp(this.clients.through(proxy, COMMAND_TIMEOUT, customizer));
	}

	// its first permit loads the semaphore's scripts, before any fault
	private static RedisLockClient warmedUp(RedisLockClient client) {
		RedisSemaphore warmUp = client.getSemaphore(LockTestClients.uniqueName(), 1);
		await().atMost(Duration.ofSeconds(10)).ignoreExceptions().until(() -> {
			warmUp.acquire(Duration.ZERO, LEASE).release();
			return true;
		});
		return client;
	}

	private FaultProxy startProxy() {
		FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port());
		this.resources.push(proxy);
		return proxy;
	}

	/** A call expected to fail. */
	@FunctionalInterface
	private interface ThrowingCall {

		@Nullable Object run() throws Exception;

	}

}
