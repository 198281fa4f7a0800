package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redislock.testsupport.RedisClusterExtension;
import io.github.redislock.testsupport.RedisServer;
import io.github.redislock.testsupport.SlotMigration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.RedisClusterConfiguration;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Releases on a Redis Cluster of 3 masters and 3 replicas go through sharded pub/sub
 * ({@code SPUBLISH}/{@code SSUBSCRIBE}): a waiter of another client is woken by the
 * message, no node outside the lock's shard receives it, a slot migration and a failover
 * lose no wake-up, {@code never} keeps classic pub/sub, and a Redis user without
 * {@code +spublish} falls back to it with a warning.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisClusterShardedPubSubTests {

	/**
	 * The holder's lease: far above what a hand-off woken by a message takes, so that a
	 * waiter that got the lock within {@link #WOKEN_WITHIN} was woken by the release, not
	 * by the lease running out.
	 */
	private static final Duration HOLDER_LEASE = Duration.ofSeconds(30);

	/** Wide enough for a loaded machine, far below {@link #HOLDER_LEASE}. */
	private static final Duration WOKEN_WITHIN = Duration.ofSeconds(8);

	private static final int HAND_OFFS = 50;

	/**
	 * How soon a waiter learns of a release right after a failover, heard or not: the
	 * transport has its waiters ask every second meanwhile; the rest is room for a loaded
	 * machine, far below the holder's lease.
	 */
	private static final Duration SETTLED_WAKE = Duration.ofSeconds(3);

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

	@RegisterExtension
	final LockTestClients clients = LockTestClients.on(redis::configuration, TestTimeouts.COMMAND_TIMEOUT);

	@Test
	void releasesReachOnlyTheNodesOfTheLocksShard() throws Exception {
		String name = LockTestClients.uniqueName();
		Shard shard = Shard.of(name);
		RedisLockClient holder = newClient(ShardedPubSub.AUTO);
		RedisLockClient waiter = newClient(ShardedPubSub.AUTO);
		// each client asks every master once (an SPUBLISH on a channel of the master's
		// slots) before it waits for the first time: not counted
		warmUp(holder, waiter, name);
		Map<Integer, Counters> before = Counters.everyNode();
		List<Duration> handOffs = handOffs(holder, waiter, name);
		Map<Integer, Counters> after = Counters.everyNode();
		Map<Integer, Counters> received = Counters.difference(before, after);
		System.out.println("[figures] sharded, " + HAND_OFFS + " hand-offs, lock on master " + shard.master
				+ " (replica " + shard.replica + "): messages received per node " + received + "; hand-off "
				+ percentiles(handOffs));
		received.forEach((port, count) -> {
			assertThat(count.classic).as("PUBLISH messages received by %s", port).isZero();
			if (port != shard.replica) {
				assertThat(count.sharded).as("SPUBLISH messages received by %s outside the shard", port).isZero();
			}
		});
		assertThat(received.get(shard.replica).sharded).as("SPUBLISH messages received by the shard's replica")
			.isGreaterThanOrEqualTo(HAND_OFFS);
	}

	@Test
	void neverKeepsClassicPubSubWhichReachesEveryNode() throws Exception {
		String name = LockTestClients.uniqueName();
		Shard shard = Shard.of(name);
		RedisLockClient holder = newClient(ShardedPubSub.NEVER);
		RedisLockClient waiter = newClient(ShardedPubSub.NEVER);
		warmUp(holder, waiter, name);
		Map<Integer, Counters> before = Counters.everyNode();
		List<Duration> handOffs = handOffs(holder, waiter, name);
		Map<Integer, Counters> received = Counters.difference(before, Counters.everyNode());
		System.out.println("[figures] classic, " + HAND_OFFS + " hand-offs, lock on master " + shard.master
				+ ": messages received per node " + received + "; hand-off " + percentiles(handOffs));
		received.forEach((port, count) -> {
			if (port != shard.master) {
				assertThat(count.classic).as("PUBLISH messages received by %s", port).isGreaterThanOrEqualTo(HAND_OFFS);
			}
		});
	}

	@Test
	void aWaiterSubscribesOnTheLocksShardOnly() throws Exception {
		String name = LockTestClients.uniqueName();
		Shard shard = Shard.of(name);
		RedisLock held = newClient(ShardedPubSub.AUTO).getLock(name);
		held.lock(HOLDER_LEASE);
		RedisLockClient waiter = newClient(ShardedPubSub.AUTO);
		CompletableFuture<Boolean> waiting = waitFor(waiter, name);
		String channel = "lock:{" + name + "}:released";
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> shardSubscribers(shard.master, channel) + shardSubscribers(shard.replica, channel) == 1);
		for (RedisServer node : redis.cluster().nodes()) {
			assertThat(node.command("PUBSUB", "NUMSUB", channel)).as("classic subscribers on %s", node.port())
				.endsWith("\n0");
		}
		held.unlock();
		assertThat(waiting.get(WOKEN_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
	}

	@Test
	void aWaiterIsWokenAfterItsSlotMigratedToAnotherMaster() throws Exception {
		String name = LockTestClients.uniqueName();
		String channel = "lock:{" + name + "}:released";
		RedisLock held = newClient(ShardedPubSub.AUTO).getLock(name);
		held.lock(HOLDER_LEASE);
		RedisLockClient waiter = newClient(ShardedPubSub.AUTO);
		CompletableFuture<Boolean> waiting = waitFor(waiter, name);
		Shard shard = Shard.of(name);
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shardSubscribers(shard.master, channel) == 1);
		SlotMigration migration = redis.cluster().beginSlotMigration("lock:{" + name + "}");
		migration.finish();
		// Redis ended the subscription on the old master; the client subscribes on the
		// new
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> shardSubscribers(migration.destination().port(), channel) == 1);
		assertThat(waiting).isNotDone();
		held.unlock();
		assertThat(waiting.get(WOKEN_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
	}

	@Test
	void aWaiterIsWokenAfterAFailoverOfItsMaster() throws Exception {
		String name = LockTestClients.uniqueName();
		String channel = "lock:{" + name + "}:released";
		RedisLock held = newClient(ShardedPubSub.AUTO).getLock(name);
		held.lock(HOLDER_LEASE);
		RedisLockClient waiter = newClient(ShardedPubSub.AUTO);
		CompletableFuture<Boolean> waiting = waitFor(waiter, name);
		Shard shard = Shard.of(name);
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shardSubscribers(shard.master, channel) == 1);
		int newMaster = redis.cluster().failOverMasterOf("lock:{" + name + "}");
		// Redis ended the subscription on the demoted master; the client subscribes
		// again,
		// on the new master or (until Lettuce reads the new topology) on the demoted one,
		// now its replica, which receives the shard's messages too
		// how soon is not the point (a loaded machine once took longer than 10 s to learn
		// the new topology); that the waiter is subscribed again before the release is
		// (on
		// one node or, re-subscribed while the roles changed, on both)
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> shardSubscribers(newMaster, channel) + shardSubscribers(shard.master, channel) >= 1);
		assertThat(waiting).isNotDone();
		held.unlock();
		assertThat(waiting.get(WOKEN_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
	}

	/**
	 * The failover case again and again, released at once after the waiter is subscribed
	 * again (when the Cluster's nodes may not all know the new roles yet), each time on a
	 * fresh name: {@code -Dredislock.test.failoverWakes=20} runs 20 (every build: none).
	 */
	@Test
	void aWaiterIsWokenAfterEveryOneOfManyFailovers() throws Exception {
		int failovers = Integer.getInteger("redislock.test.failoverWakes", 0);
		Assumptions.assumeTrue(failovers > 0, "-Dredislock.test.failoverWakes=N runs N failovers");
		RedisLockClient holder = newClient(ShardedPubSub.AUTO);
		RedisLockClient waiter = newClient(ShardedPubSub.AUTO);
		List<String> missed = new ArrayList<>();
		for (int i = 0; i < failovers; i++) {
			String name = LockTestClients.uniqueName();
			String channel = "lock:{" + name + "}:released";
			RedisLock held = holder.getLock(name);
			held.lock(HOLDER_LEASE);
			CompletableFuture<Boolean> waiting = waitFor(waiter, name);
			Shard shard = Shard.of(name);
			Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> shardSubscribers(shard.master, channel) == 1);
			int newMaster = redis.cluster().failOverMasterOf("lock:{" + name + "}");
			Awaitility.await()
				.atMost(Duration.ofSeconds(30))
				.until(() -> shardSubscribers(newMaster, channel) + shardSubscribers(shard.master, channel) >= 1);
			String where = (shardSubscribers(newMaster, channel) >= 1) ? "the new master" : "the demoted master";
			long unlockedAt = System.nanoTime();
			held.unlock();
			long releasedAt = System.nanoTime();
			try {
				// a release the waiter did not hear is noticed within a second or so
				waiting.get(SETTLED_WAKE.toMillis(), TimeUnit.MILLISECONDS);
			}
			catch (java.util.concurrent.TimeoutException ex) {
				missed.add("failover " + i + ": subscribed again on " + where);
				waiting.get(HOLDER_LEASE.toSeconds() + 30, TimeUnit.SECONDS);
			}
			System.out.printf("failover %d: subscribed again on %s, unlock took %d ms, woken %d ms after it%n", i,
					where, TimeUnit.NANOSECONDS.toMillis(releasedAt - unlockedAt),
					TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - releasedAt));
		}
		assertThat(missed).as("releases missed, of %d failovers", failovers).isEmpty();
	}

	@Test
	void aUserWithoutSpublishFallsBackToClassicPubSubWithAWarning(CapturedOutput output) throws Exception {
		String user = "no-spublish";
		for (RedisServer node : redis.cluster().nodes()) {
			node.command("ACL", "SETUSER", user, "on", ">secret", "~*", "&*", "+@all", "-spublish");
		}
		LockTestClients limited = LockTestClients.on(() -> {
			RedisClusterConfiguration configuration = redis.configuration();
			configuration.setUsername(user);
			configuration.setPassword("secret");
			return configuration;
		}, TestTimeouts.COMMAND_TIMEOUT);
		try (limited) {
			String name = LockTestClients.uniqueName();
			RedisLock held = LockTestClients.awaitConnected(limited.newClient(holderSettings(ShardedPubSub.AUTO)))
				.getLock(name);
			Awaitility.await()
				.atMost(Duration.ofSeconds(20))
				.untilAsserted(() -> assertThat(output).contains("NOPERM").contains("+spublish"));
			held.lock(HOLDER_LEASE);
			RedisLockClient waiter = LockTestClients
				.awaitConnected(limited.newClient(holderSettings(ShardedPubSub.AUTO)));
			CompletableFuture<Boolean> waiting = waitFor(waiter, name);
			String channel = "lock:{" + name + "}:released";
			Awaitility.await()
				.atMost(Duration.ofSeconds(10))
				.until(() -> redis.cluster()
					.nodes()
					.stream()
					.anyMatch((node) -> !node.command("PUBSUB", "NUMSUB", channel).endsWith("\n0")));
			held.unlock();
			assertThat(waiting.get(WOKEN_WITHIN.toMillis(), TimeUnit.MILLISECONDS)).isTrue();
		}
	}

	// connected before a test times anything: a cold JVM on a busy machine takes seconds
	// to read a Cluster's topology
	private RedisLockClient newClient(ShardedPubSub sharded) {
		return LockTestClients.awaitConnected(this.clients.newClient(holderSettings(sharded)));
	}

	private static Consumer<RedisLockClient.Builder> holderSettings(ShardedPubSub sharded) {
		return (builder) -> builder.shardedPubSub(sharded)
			.watchdogTimeout(HOLDER_LEASE)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT);
	}

	// a thread of the waiting client asks for the lock, with time enough for any test
	private static CompletableFuture<Boolean> waitFor(RedisLockClient waiter, String name) {
		CompletableFuture<Boolean> acquired = CompletableFuture.supplyAsync(() -> {
			RedisLock lock = waiter.getLock(name);
			try {
				boolean got = lock.tryLock(Duration.ofSeconds(60), Duration.ofSeconds(5));
				if (got) {
					lock.unlock();
				}
				return got;
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				return false;
			}
		}, TestThreads.perTask());
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> LockTestClients.inspector(waiter).waitingCount() == 1);
		return acquired;
	}

	// one hand-off each way: each client has waited once, so knows how it publishes
	private static void warmUp(RedisLockClient one, RedisLockClient other, String name) throws Exception {
		RedisLock lock = one.getLock(name);
		lock.lock(HOLDER_LEASE);
		LockTestClients.handOffTime(lock, other);
		RedisLock otherLock = other.getLock(name);
		otherLock.lock(HOLDER_LEASE);
		LockTestClients.handOffTime(otherLock, one);
	}

	private static List<Duration> handOffs(RedisLockClient holder, RedisLockClient waiter, String name)
			throws Exception {
		List<Duration> times = new ArrayList<>();
		RedisLock lock = holder.getLock(name);
		for (int i = 0; i < HAND_OFFS; i++) {
			lock.lock(HOLDER_LEASE);
			Duration handOff = LockTestClients.handOffTime(lock, waiter);
			assertThat(handOff).as("hand-off %d", i).isLessThan(WOKEN_WITHIN);
			times.add(handOff);
		}
		return times;
	}

	private static String percentiles(List<Duration> times) {
		List<Duration> sorted = new ArrayList<>(times);
		Collections.sort(sorted);
		return "p50 " + sorted.get(sorted.size() / 2).toNanos() / 1000 + " us, p90 "
				+ sorted.get(sorted.size() * 9 / 10).toNanos() / 1000 + " us, max "
				+ sorted.get(sorted.size() - 1).toNanos() / 1000 + " us";
	}

	private static long shardSubscribers(int port, String channel) {
		RedisServer node = redis.cluster().nodes().stream().filter((n) -> n.port() == port).findFirst().orElseThrow();
		String reply = node.command("PUBSUB", "SHARDNUMSUB", channel);
		return Long.parseLong(reply.substring(reply.lastIndexOf('\n') + 1));
	}

	/** The ports of the master that serves a lock's slot and of its replica. */
	private record Shard(int master, int replica) {

		static Shard of(String name) {
			RedisServer replica = redis.cluster().replicaOfMasterOf("lock:{" + name + "}");
			// ROLE of a replica: slave, the master's host, its port, ...
			String[] role = replica.command("ROLE").split("\n");
			return new Shard(Integer.parseInt(role[2]), replica.port());
		}

	}

	/**
	 * The pub/sub messages a node received over the cluster bus ({@code CLUSTER INFO}):
	 * classic ones, which every node gets, and sharded ones.
	 */
	private record Counters(long classic, long sharded) {

		static Map<Integer, Counters> everyNode() {
			Map<Integer, Counters> counters = new LinkedHashMap<>();
			for (RedisServer node : redis.cluster().nodes()) {
				String info = node.command("CLUSTER", "INFO");
				counters.put(node.port(), new Counters(field(info, "cluster_stats_messages_publish_received"),
						field(info, "cluster_stats_messages_publishshard_received")));
			}
			return counters;
		}

		static Map<Integer, Counters> difference(Map<Integer, Counters> before, Map<Integer, Counters> after) {
			Map<Integer, Counters> difference = new LinkedHashMap<>();
			after.forEach(
					(port, counters) -> difference.put(port, new Counters(counters.classic - before.get(port).classic,
							counters.sharded - before.get(port).sharded)));
			return difference;
		}

		// a counter shows only once it is above 0
		private static long field(String info, String name) {
			return info.lines()
				.filter((line) -> line.startsWith(name + ":"))
				.map((line) -> Long.parseLong(line.substring(name.length() + 1).trim()))
				.findFirst()
				.orElse(0L);
		}

		@Override
		public String toString() {
			return "publish " + this.classic + "/spublish " + this.sharded;
		}

	}

}
