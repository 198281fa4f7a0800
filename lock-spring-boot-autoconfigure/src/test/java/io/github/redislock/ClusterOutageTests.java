package io.github.redislock;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import io.github.redislock.testsupport.RedisClusterExtension;
import io.github.redislock.testsupport.RedisServer;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

/**
 * When a whole Redis Cluster goes away and comes back, locks work again within
 * {@link #RECOVERY} of the cluster answering, however long it was away: as
 * {@code RedisOutageTests} shows for a single server.
 *
 * <p>
 * Lettuce reconnects each node connection of a cluster connection after a delay that
 * grows with each failed attempt (to 30 s by default). The client here is made with a
 * constant reconnect delay of a minute, so that after a short outage its node connections
 * are where Lettuce's default leaves them after a long one.
 */
class ClusterOutageTests {

	private static final Log logger = LogFactory.getLog(ClusterOutageTests.class);

	/** The bound of issue 31: locks work this soon after Redis answers again. */
	private static final Duration RECOVERY = Duration.ofSeconds(2);

	/** Longer than the test: Lettuce alone would not reconnect during it. */
	private static final Delay NO_RECONNECT_DURING_THE_TEST = Delay.constant(Duration.ofMinutes(1));

	private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3);

	private final Deque<AutoCloseable> resources = new ArrayDeque<>();

	@AfterEach
	void closeResources() throws Exception {
		while (!this.resources.isEmpty()) {
			this.resources.pop().close();
		}
	}

	@Test
	void locksWorkWithinTwoSecondsOfTheClusterAnsweringAgainWhateverLettucesReconnectDelay() throws Exception {
		RedisLockClient client = client();
		RedisLockClient waiting = client();
		await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> lockAndUnlockEach(client));
		// the waiting client has its pub/sub connection: a wait that ended subscribed
		String name = LockTestClients.uniqueName();
		RedisLock holder = client.getLock(name);
		holder.lock();
		RedisLock waitingLock = waiting.getLock(name);
		await().atMost(Duration.ofSeconds(30))
			.ignoreExceptions()
			.until(() -> !waitingLock.tryLock(Duration.ofMillis(100), null));
		holder.unlock();

		redis.cluster().nodes().forEach(RedisServer::stop);
		assertThat(catchThrowable(() -> lockAndUnlockEach(client))).isInstanceOf(RedisLockException.class);
		redis.cluster().nodes().forEach(RedisServer::start);
		await().atMost(Duration.ofSeconds(30))
			.until(() -> redis.cluster().nodes().stream().allMatch((node) -> clusterStateOk(node)));
		long back = System.nanoTime();

		AtomicInteger failed = new AtomicInteger();
		await().atMost(Duration.ofSeconds(90))
			.pollDelay(Duration.ZERO)
			.pollInterval(Duration.ofMillis(20))
			.until(() -> {
				try {
					return lockAndUnlockEach(client);
				}
				catch (RuntimeException ex) {
					failed.incrementAndGet();
					return false;
				}
			});
		Duration took = Duration.ofNanos(System.nanoTime() - back);
		logger.info("Locks on every master worked again " + took.toMillis() + " ms after the cluster answered again; "
				+ failed + " calls failed before");
		assertThat(took).isLessThan(RECOVERY);
		// and a waiter is woken by a release again, not by its holder's lease end
		RedisLock holderAgain = client.getLock(name);
		holderAgain.lock();
		Duration handOff = LockTestClients.handOffTime(holderAgain, waiting);
		logger.info("A waiter was woken by a release " + handOff.toMillis() + " ms after it, "
				+ Duration.ofNanos(System.nanoTime() - back).toMillis() + " ms after the cluster was back");
		assertThat(handOff).as("a release woke the waiter within").isLessThan(Duration.ofMillis(500));
	}

	private static boolean clusterStateOk(RedisServer node) {
		try {
			return node.command("CLUSTER", "INFO").contains("cluster_state:ok");
		}
		catch (RuntimeException ex) {
			return false;
		}
	}

	// a name in each master's slots: every node connection must be back
	private static boolean lockAndUnlockEach(RedisLockClient client) {
		for (String name : new String[] { "outage-a", "outage-b", "outage-c", "outage-d", "outage-e" }) {
			RedisLock lock = client.getLock(name + "-" + System.nanoTime());
			if (!lock.tryLock()) {
				return false;
			}
			lock.unlock();
		}
		return true;
	}

	private RedisLockClient client() {
		ClientResources clientResources = ClientResources.builder()
			.reconnectDelay(NO_RECONNECT_DURING_THE_TEST)
			.build();
		this.resources.push(() -> clientResources.shutdown().get(10, TimeUnit.SECONDS));
		LettuceConnectionFactory factory = new LettuceConnectionFactory(redis.configuration(),
				LettuceClientConfiguration.builder().clientResources(clientResources).build());
		factory.afterPropertiesSet();
		factory.start();
		this.resources.push(factory::destroy);
		RedisLockClient client = RedisLockClient.builder(factory).commandTimeout(COMMAND_TIMEOUT).build();
		this.resources.push(client);
		return client;
	}

}
