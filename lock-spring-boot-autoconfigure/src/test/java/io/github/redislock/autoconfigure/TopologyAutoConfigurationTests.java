package io.github.redislock.autoconfigure;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.TestThreads;
import io.github.redislock.TestTimeouts;
import io.github.redislock.internal.LockInspector;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisSentinelGroup;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.connection.ClusterSlotHashUtil;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The starter on a Redis Cluster and behind Sentinel, configured the Spring Boot way
 * ({@code spring.data.redis.cluster.nodes}, {@code spring.data.redis.sentinel.*}): locks
 * on names spread over the cluster's masters, a waiter woken by a release, the watchdog
 * renewing, and fencing tokens, with nothing of the library configured for the topology.
 * (The fault tests of each topology build their clients by hand.)
 */
class TopologyAutoConfigurationTests {

	private final ApplicationContextRunner runner = new ApplicationContextRunner()
		.withConfiguration(RedisLockTestContexts.redisAndLock())
		// generous timings: a cold JVM on a busy machine took over 2 s to discover a
		// cluster, and a 300 ms watchdog can miss renewals there; these tests are about
		// the topologies, not about either bound
		.withPropertyValues(TestTimeouts.commandTimeoutProperties())
		.withPropertyValues("redis-lock.watchdog-timeout=1500ms");

	@Test
	void onAClusterConfiguredByItsNodes() {
		try (RedisCluster cluster = RedisCluster.start(3)) {
			this.runner
				.withPropertyValues("spring.data.redis.cluster.nodes=" + String.join(",", cluster.nodeAddresses()))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					RedisLockClient client = context.getBean(RedisLockClient.class);
					List<RedisLock> locks = new ArrayList<>();
					Set<Integer> slots = new HashSet<>();
					for (int i = 0; i < 30; i++) {
						RedisLock lock = client.getLock("cluster-" + i);
						lock.lock();
						locks.add(lock);
						slots.add(ClusterSlotHashUtil.calculateSlot("lock:{cluster-" + i + "}"));
					}
					assertThat(slots).as("names spread over slots").hasSizeGreaterThan(20);
					assertLocksStayHeldByTheWatchdog(locks);
					locks.forEach(RedisLock::unlock);
					assertAReleaseWakesAWaiter(client, "cluster-waited-for");
				});
		}
	}

	@Test
	void behindSentinelConfiguredByItsMasterName() {
		try (RedisSentinelGroup group = RedisSentinelGroup.start(5000)) {
			this.runner
				.withPropertyValues("spring.data.redis.sentinel.master=" + RedisSentinelGroup.MASTER_NAME,
						"spring.data.redis.sentinel.nodes=" + String.join(",", group.sentinelAddresses()))
				.run((context) -> {
					assertThat(context).hasNotFailed();
					RedisLockClient client = context.getBean(RedisLockClient.class);
					RedisLock lock = client.getLock("sentinel");
					lock.lock();
					assertThat(group.master().command("EXISTS", "lock:{sentinel}")).isEqualTo("1");
					assertLocksStayHeldByTheWatchdog(List.of(lock));
					lock.unlock();
					assertAReleaseWakesAWaiter(client, "sentinel-waited-for");
				});
		}
	}

	private static void assertLocksStayHeldByTheWatchdog(List<RedisLock> locks) {
		await().pollInSameThread()
			.during(Duration.ofMillis(3500))
			.atMost(Duration.ofSeconds(7))
			.until(() -> locks.stream().allMatch(RedisLock::isHeldByCurrentThread));
	}

	// The holder's lease is 30 s, so only the release message can wake the waiter within
	// a second.
	private static void assertAReleaseWakesAWaiter(RedisLockClient client, String name) throws Exception {
		RedisLock held = client.getLock(name);
		held.lock(Duration.ofSeconds(30));
		long holderToken = held.fencingToken();
		CompletableFuture<long[]> waiter = CompletableFuture.supplyAsync(() -> {
			RedisLock lock = client.getLock(name);
			try {
				if (!lock.tryLock(Duration.ofSeconds(10), Duration.ofSeconds(5))) {
					return new long[] { 0, -1 };
				}
				long[] acquired = { System.nanoTime(), lock.fencingToken() };
				lock.unlock();
				return acquired;
			}
			catch (InterruptedException ex) {
				throw new IllegalStateException(ex);
			}
		}, TestThreads.perTask());
		await().atMost(Duration.ofSeconds(5)).until(() -> LockInspector.of(client).orElseThrow().waitingCount() == 1);
		long releasedAt = System.nanoTime();
		held.unlock();
		long[] acquired = waiter.get(10, TimeUnit.SECONDS);
		assertThat(acquired[1]).as("token of the waiter").isGreaterThan(holderToken);
		assertThat(Duration.ofNanos(acquired[0] - releasedAt)).as("hand-off").isLessThan(Duration.ofSeconds(1));
	}

}
