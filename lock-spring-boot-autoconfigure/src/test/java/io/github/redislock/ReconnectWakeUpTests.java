package io.github.redislock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServerExtension;
import io.github.redislock.testsupport.RedisServers;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A release published while a waiting client's pub/sub connection is down (killed, cut,
 * partitioned) never reaches that client. The waiter must still learn of it once its
 * client has reconnected and subscribed again, within a second, not when the holder's 30
 * s lease ends or its own wait runs out; and after the reconnect a release wakes it at
 * once again. The holder is another client, as another process would be.
 */
class ReconnectWakeUpTests {

	private static final Log logger = LogFactory.getLog(ReconnectWakeUpTests.class);

	/** Far longer than any check here: the holder's lease never ends by itself. */
	private static final Duration HOLDER_LEASE = Duration.ofSeconds(30);

	/** The waiter's wait: a waiter that missed the release gives up at its end. */
	private static final Duration WAIT = Duration.ofSeconds(10);

	/**
	 * How long the waiting client waits before it reconnects a killed connection (Lettuce
	 * waits a delay after a failure; this fixes it), so that the release surely falls in
	 * the gap when nothing of the waiter is subscribed.
	 */
	private static final Duration RECONNECT_DELAY = Duration.ofMillis(500);

	/** How soon after its client is back a waiter must have the lock. */
	private static final Duration AFTER_RECONNECT = Duration.ofSeconds(1);

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
	void aReleaseWhileThePubSubConnectionIsKilledWakesTheWaiterOnceItHasSubscribedAgain() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		// the watchdog's lease: 30 s, renewed
		holder.lock();
		RedisLockClient waiting = slowlyReconnectingClient();
		CompletableFuture<WaitOutcome> waiter = startWaiting(waiting, name);
		awaitSubscribed(waiting, name);
		redis.command("CLIENT", "KILL", "TYPE", "pubsub");
		long releasedAt = System.nanoTime();
		holder.unlock();
		assertThat(subscribers(name)).as("subscribers of the release channel when the release was published").isZero();
		long resubscribedAt = awaitSubscribedAgain(name);
		WaitOutcome outcome = waiter.get(30, TimeUnit.SECONDS);
		report("CLIENT KILL TYPE pubsub", outcome, releasedAt, "re-subscription", resubscribedAt);
		assertAcquiredSoonAfter(outcome, releasedAt, "re-subscription", resubscribedAt);
		assertThat(between(releasedAt, outcome.returnedAt())).isLessThan(RECONNECT_DELAY.plus(AFTER_RECONNECT));
		assertReleasesWakeTheWaiterAtOnceAgain(holder, waiting);
	}

	@Test
	void killingTheCommandConnectionsAtTheReleaseDoesNotCostTheWaiterItsWakeUp() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock(HOLDER_LEASE);
		RedisLockClient waiting = slowlyReconnectingClient();
		CompletableFuture<WaitOutcome> waiter = startWaiting(waiting, name);
		awaitSubscribed(waiting, name);
		// the holder's and the waiter's command connections; Redis spares connections in
		// subscribe mode, so the release reaches the waiter, whose attempt then waits for
		// its command connection to come back
		redis.command("CLIENT", "KILL", "TYPE", "normal");
		long releasedAt = System.nanoTime();
		holder.unlock();
		assertThat(subscribers(name)).as("subscribers of the release channel when the release was published")
			.isEqualTo(1);
		WaitOutcome outcome = waiter.get(30, TimeUnit.SECONDS);
		report("CLIENT KILL TYPE normal", outcome, releasedAt, "release", releasedAt);
		assertAcquiredSoonAfter(outcome, releasedAt, "release", releasedAt);
		assertThat(between(releasedAt, outcome.returnedAt())).isLessThan(RECONNECT_DELAY.plus(AFTER_RECONNECT));
		assertReleasesWakeTheWaiterAtOnceAgain(holder, waiting);
	}

	@Test
	void aReleaseWhileTheWaitersConnectionsAreCutWakesItWithinASecondOfHealing() throws Exception {
		BehindProxy scene = waitingBehindProxy();
		FaultProxy proxy = scene.proxy();
		String name = scene.name();
		proxy.cut();
		await().atMost(Duration.ofSeconds(5)).until(() -> subscribers(name) == 0);
		long releasedAt = System.nanoTime();
		scene.holder().unlock();
		assertThat(subscribers(name)).as("subscribers of the release channel when the release was published").isZero();
		long healedAt = System.nanoTime();
		proxy.heal();
		assertWokenSoonAfterTheHeal(scene, "FaultProxy cut", releasedAt, healedAt);
	}

	@Test
	void aReleaseDuringAPartitionOfTheWaiterWakesItWithinASecondOfHealing() throws Exception {
		BehindProxy scene = waitingBehindProxy();
		FaultProxy proxy = scene.proxy();
		proxy.blackHole();
		long releasedAt = System.nanoTime();
		scene.holder().unlock();
		// the partition lasts a while, and the waiter keeps waiting through it
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !scene.waiter().isDone());
		long healedAt = System.nanoTime();
		proxy.heal();
		assertWokenSoonAfterTheHeal(scene, "FaultProxy partition", releasedAt, healedAt);
	}

	@Test
	void aReleaseLostWhenAPartitionEndsInResetConnectionsWakesTheWaiterWithinASecondOfHealing() throws Exception {
		BehindProxy scene = waitingBehindProxy();
		FaultProxy proxy = scene.proxy();
		proxy.blackHole();
		long releasedAt = System.nanoTime();
		scene.holder().unlock();
		await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3)).until(() -> !scene.waiter().isDone());
		// the partition ends with the connections reset (as by a firewall or NAT that
		// dropped them): the release message held in the network is gone
		proxy.cut();
		long healedAt = System.nanoTime();
		proxy.heal();
		assertWokenSoonAfterTheHeal(scene, "FaultProxy partition ended by a reset", releasedAt, healedAt);
	}

	/**
	 * A holder (another client, 30 s lease) and a client behind a proxy waiting for its
	 * lock, subscribed.
	 */
	private BehindProxy waitingBehindProxy() throws Exception {
		String name = LockTestClients.uniqueName();
		RedisLock holder = this.clients.newClient().getLock(name);
		holder.lock(HOLDER_LEASE);
		FaultProxy proxy = startProxy();
		RedisLockClient waiting = clientBehind(proxy);
		CompletableFuture<WaitOutcome> waiter = startWaiting(waiting, name);
		awaitSubscribed(waiting, name);
		return new BehindProxy(name, holder, proxy, waiting, waiter);
	}

	private void assertWokenSoonAfterTheHeal(BehindProxy scene, String fault, long releasedAt, long healedAt)
			throws Exception {
		WaitOutcome outcome = scene.waiter().get(30, TimeUnit.SECONDS);
		report(fault, outcome, releasedAt, "heal", healedAt);
		assertAcquiredSoonAfter(outcome, releasedAt, "heal", healedAt);
		assertReleasesWakeTheWaiterAtOnceAgain(scene.holder(), scene.waiting());
	}

	private record BehindProxy(String name, RedisLock holder, FaultProxy proxy, RedisLockClient waiting,
			CompletableFuture<WaitOutcome> waiter) {
	}

	private void assertAcquiredSoonAfter(WaitOutcome outcome, long releasedAt, String event, long eventAt) {
		assertThat(outcome.acquired())
			.as("the waiter got the lock within its %s wait (it gave up %d ms after the release)", WAIT,
					between(releasedAt, outcome.returnedAt()).toMillis())
			.isTrue();
		assertThat(between(eventAt, outcome.returnedAt())).as("from the %s to the acquisition", event)
			.isLessThan(AFTER_RECONNECT);
	}

	/** After the reconnect a release wakes the waiter at once, as before the fault. */
	private void assertReleasesWakeTheWaiterAtOnceAgain(RedisLock holder, RedisLockClient waiting) throws Exception {
		holder.lock(HOLDER_LEASE);
		Duration handOff = LockTestClients.handOffTime(holder, waiting);
		logger.info("  then a release woke the waiter " + handOff.toMillis() + " ms after it was published");
		assertThat(handOff).isLessThan(Duration.ofMillis(500));
	}

	private static CompletableFuture<WaitOutcome> startWaiting(RedisLockClient client, String name) {
		return CompletableFuture.supplyAsync(() -> {
			RedisLock lock = client.getLock(name);
			try {
				boolean acquired = lock.tryLock(WAIT, null);
				long returnedAt = System.nanoTime();
				if (acquired) {
					lock.unlock();
				}
				return new WaitOutcome(acquired, returnedAt);
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
	}

	private static void awaitSubscribed(RedisLockClient client, String name) {
		await().atMost(Duration.ofSeconds(5)).until(() -> LockTestClients.inspector(client).waitingCount() == 1);
		assertThat(redis.command("PUBSUB", "CHANNELS", "*").lines()).contains(channel(name));
		assertThat(subscribers(name)).isEqualTo(1);
	}

	/** When the waiting client's re-subscription to the lock's channel took effect. */
	private static long awaitSubscribedAgain(String name) {
		await().atMost(Duration.ofSeconds(10))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(10))
			.until(() -> subscribers(name) == 1);
		return System.nanoTime();
	}

	private static long subscribers(String name) {
		String reply = redis.command("PUBSUB", "NUMSUB", channel(name));
		return Long.parseLong(reply.substring(reply.lastIndexOf('\n') + 1));
	}

	private static String channel(String name) {
		return "lock:{" + name + "}:released";
	}

	private static Duration between(long startNanos, long endNanos) {
		return Duration.ofNanos(endNanos - startNanos);
	}

	private static void report(String fault, WaitOutcome outcome, long releasedAt, String event, long eventAt) {
		String after = between(releasedAt, outcome.returnedAt()).toMillis() + " ms after the release";
		if (eventAt != releasedAt) {
			after += ", " + between(eventAt, outcome.returnedAt()).toMillis() + " ms after the " + event;
		}
		logger.info(fault + ": the waiter " + (outcome.acquired() ? "got the lock " : "gave up ") + after);
	}

	/**
	 * A client of its own, whose connections come back {@link #RECONNECT_DELAY} after a
	 * failure.
	 */
	private RedisLockClient slowlyReconnectingClient() {
		ClientResources clientResources = ClientResources.builder()
			.reconnectDelay(Delay.constant(RECONNECT_DELAY))
			.build();
		this.resources.push(() -> clientResources.shutdown().get(10, TimeUnit.SECONDS));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(
				new RedisStandaloneConfiguration(redis.server().host(), redis.server().port()),
				LettuceClientConfiguration.builder()
					.clientResources(clientResources)
					.commandTimeout(Duration.ofSeconds(2))
					.build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.push(factory::destroy);
		return client(factory);
	}

	private RedisLockClient clientBehind(FaultProxy proxy) {
		LettuceConnectionFactory factory = RedisServers
			.connectionFactory(new RedisStandaloneConfiguration(proxy.host(), proxy.port()), Duration.ofSeconds(2));
		this.resources.push(factory::destroy);
		return client(factory);
	}

	private RedisLockClient client(LettuceConnectionFactory factory) {
		RedisLockClient client = RedisLockClient.builder(factory).build();
		this.resources.push(client);
		return client;
	}

	private FaultProxy startProxy() {
		FaultProxy proxy = FaultProxy.start(redis.server().host(), redis.server().port());
		this.resources.push(proxy);
		return proxy;
	}

	/**
	 * What the waiter's {@code tryLock} returned, and when.
	 *
	 * @param acquired whether it got the lock
	 * @param returnedAt when it returned, from {@link System#nanoTime()}
	 */
	private record WaitOutcome(boolean acquired, long returnedAt) {
	}

}
