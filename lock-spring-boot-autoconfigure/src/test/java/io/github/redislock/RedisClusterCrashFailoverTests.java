package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import io.github.redislock.internal.LockType;
import io.github.redislock.testsupport.RedisClusterExtension;
import io.github.redislock.testsupport.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Crashes on a Redis Cluster of 3 masters and 3 replicas, with sharded pub/sub: a master
 * killed ({@code SIGKILL}) while waiters of another client sleep on locks of its slots
 * (one released on the promoted replica, one whose lease runs out there), a replica that
 * missed grants forced up after its master crashed ({@code CLUSTER FAILOVER TAKEOVER}),
 * and a master dropping its pub/sub connections ({@code CLIENT KILL TYPE pubsub}). One
 * cluster serves the class: a killed node is started again after each test and rejoins as
 * a replica.
 */
class RedisClusterCrashFailoverTests {

	/**
	 * The holder's lease: far above any wake-up by a message, so that a waiter that got
	 * the lock within {@link #WOKEN_WITHIN} of a release was woken by it, not by the
	 * lease running out.
	 */
	private static final Duration HOLDER_LEASE = Duration.ofSeconds(30);

	/**
	 * The promise, a waiter woken within 1 s of a release, with a second of slack for a
	 * machine whose cores are all busy; a waiter that missed the release would wait for
	 * the whole {@link #HOLDER_LEASE}.
	 */
	private static final Duration WOKEN_WITHIN = Duration.ofSeconds(2);

	/**
	 * Time enough for failure detection and an election on a busy machine: not what the
	 * tests are about.
	 */
	private static final Duration FAILOVER_WITHIN = Duration.ofSeconds(60);

	/**
	 * A lease that runs out after the Cluster promoted the replica and the waiters
	 * subscribed on it, even on a busy machine (5.6 s at most seen with both cores busy),
	 * but before a waiter's wait ends; no longer, since the test waits for it.
	 */
	private static final Duration LEASE_OUTLIVING_THE_FAILOVER = Duration.ofSeconds(20);

	private static final int GRANTS = 5;

	@RegisterExtension
	static final RedisClusterExtension redis = new RedisClusterExtension(3, 1);

	@RegisterExtension
	final LockTestClients clients = LockTestClients.on(redis::configuration, TestTimeouts.COMMAND_TIMEOUT);

	@Test
	void waitersGetTheirLocksOnTheReplicaPromotedAfterTheirMasterCrashed() throws Exception {
		// one lock released by its holder on the new master, another whose lease runs
		// out there
		String released = LockTestClients.uniqueName();
		String leased = otherSlotOnTheSameMaster(released);
		RedisLockClient holder = newClient();
		RedisLock releasedHeld = holder.getLock(released);
		releasedHeld.lock(HOLDER_LEASE);
		RedisLock leasedHeld = holder.getLock(leased);
		leasedHeld.lock(LEASE_OUTLIVING_THE_FAILOVER);
		long leaseEndsAt = System.nanoTime() + leasedHeld.remainingLease().toNanos();
		// the locks outlive their master only once replicated
		RedisServer replica = redis.cluster().replicaOfMasterOf(key(released));
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> keysInSlot(replica, key(released)).contains(key(released))
					&& keysInSlot(replica, key(leased)).contains(key(leased)));
		RedisLockClient waiting = newClient();
		Waiter releasedWaiter = Waiter.of(waiting, released);
		Waiter leasedWaiter = Waiter.of(waiting, leased);
		int oldMaster = redis.cluster().masterOf(key(released)).port();
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> shardSubscribers(oldMaster, channel(released)) == 1
					&& shardSubscribers(oldMaster, channel(leased)) == 1);
		long killedAt = System.nanoTime();
		int newMaster = redis.cluster().crashMasterOf(key(released));
		Duration promoted = since(killedAt);
		Awaitility.await()
			.atMost(Duration.ofSeconds(30))
			.until(() -> shardSubscribers(newMaster, channel(released)) == 1
					&& shardSubscribers(newMaster, channel(leased)) == 1);
		Duration resubscribed = since(killedAt);
		assertThat(releasedWaiter.acquiredAt).as("the waiter, before the release").isNotDone();
		assertThat(leasedWaiter.acquiredAt).as("the waiter, before the lease ran out").isNotDone();
		// the holder's client finds the new master (MOVED, or its topology read again);
		// not what the test is about
		long holderFollowsFrom = System.nanoTime();
		Awaitility.await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(releasedHeld::isLocked);
		Duration holderFollowed = since(holderFollowsFrom);
		long releasedAt = System.nanoTime();
		releasedHeld.unlock();
		Duration wokenByRelease = releasedWaiter.wokenAfter(releasedAt);
		Duration afterLeaseEnd = leasedWaiter.wokenAfter(leaseEndsAt);
		System.out.println("[figures] master killed: replica promoted by failure detection after " + promoted.toMillis()
				+ " ms, the waiters subscribed on it after " + resubscribed.toMillis()
				+ " ms; the holder's client reached it " + holderFollowed.toMillis()
				+ " ms later; released there, the waiter had the lock " + micros(wokenByRelease)
				+ " us later; the other waiter had its lock " + micros(afterLeaseEnd) + " us after the lease ran out");
		assertThat(wokenByRelease).isLessThan(WOKEN_WITHIN);
		assertThat(afterLeaseEnd).isLessThan(WOKEN_WITHIN);
	}

	@Test
	void tokensIncreaseAfterAReplicaThatMissedGrantsTakesOverFromItsCrashedMaster() {
		String name = LockTestClients.uniqueName();
		String key = "lock:{" + name + "}";
		RedisLockClient client = newClient();
		long replicated = grants(client, name).stream().mapToLong(Tokens::last).max().orElseThrow();
		RedisServer replica = redis.cluster().replicaOfMasterOf(key);
		RedisServer master = redis.cluster().masterOf(key);
		Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> fenceCounter(replica, key) == replicated);
		// the replica stops, and its link is cut on the master's side: nothing of what
		// follows reaches it, not even what the kernel would have buffered for it
		replica.pause();
		master.command("CLIENT", "KILL", "TYPE", "replica");
		List<Tokens> missed = grants(client, name);
		long lastMissed = missed.stream().mapToLong(Tokens::last).max().orElseThrow();
		master.stop();
		replica.resume();
		redis.cluster().takeOver(replica);
		long tookOverAt = System.nanoTime();
		assertThat(fenceCounter(replica, key)).as("the promoted replica missed the last grants")
			.isEqualTo(replicated)
			.isLessThan(lastMissed);
		// the same client follows the Cluster to the new master
		long same = Awaitility.await()
			.atMost(FAILOVER_WITHIN)
			.ignoreExceptions()
			.until(() -> Tokens.takeOne(client, LockType.EXCLUSIVE, name), (token) -> true);
		Duration firstGrant = since(tookOverAt);
		assertThat(same).isGreaterThan(lastMissed);
		List<Tokens> fresh = grants(newClient(), name);
		fresh.forEach((tokens) -> tokens.assertAbove(same));
		System.out.println("[figures] takeover: replicated up to " + replicated + ", missed by the replica " + missed
				+ ", then on the promoted replica " + same + " (same client, " + firstGrant.toMillis()
				+ " ms after the takeover), " + fresh + " (new client)");
	}

	@Test
	void waitersOfTwoSlotsAreWokenAfterTheirMasterKilledThePubSubConnections() throws Exception {
		String first = LockTestClients.uniqueName();
		String second = otherSlotOnTheSameMaster(first);
		RedisServer master = redis.cluster().masterOf(key(first));
		RedisLockClient holder = newClient();
		RedisLock firstHeld = holder.getLock(first);
		RedisLock secondHeld = holder.getLock(second);
		firstHeld.lock(HOLDER_LEASE);
		secondHeld.lock(HOLDER_LEASE);
		RedisLockClient waiting = newClient();
		Waiter firstWaiter = Waiter.of(waiting, first);
		Waiter secondWaiter = Waiter.of(waiting, second);
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> shardSubscribers(master.port(), channel(first)) == 1
					&& shardSubscribers(master.port(), channel(second)) == 1);
		assertThat(Long.parseLong(master.command("CLIENT", "KILL", "TYPE", "pubsub"))).as("pub/sub connections killed")
			.isPositive();
		// one release at once, in the gap before the client subscribes again
		long firstReleasedAt = System.nanoTime();
		firstHeld.unlock();
		Duration firstWoken = firstWaiter.wokenAfter(firstReleasedAt);
		// the other once subscribed again
		Awaitility.await()
			.atMost(Duration.ofSeconds(10))
			.until(() -> shardSubscribers(master.port(), channel(second)) == 1);
		assertThat(secondWaiter.acquiredAt).as("the second waiter, before its release").isNotDone();
		long secondReleasedAt = System.nanoTime();
		secondHeld.unlock();
		Duration secondWoken = secondWaiter.wokenAfter(secondReleasedAt);
		System.out.println(
				"[figures] CLIENT KILL TYPE pubsub: released at once, the waiter had the lock " + micros(firstWoken)
						+ " us later; released once subscribed again, " + micros(secondWoken) + " us later");
		assertThat(firstWoken).isLessThan(WOKEN_WITHIN);
		assertThat(secondWoken).isLessThan(WOKEN_WITHIN);
	}

	// connected before a test times anything: a cold JVM on a busy machine takes seconds
	// to read a Cluster's topology
	private RedisLockClient newClient() {
		Consumer<RedisLockClient.Builder> settings = (builder) -> builder.shardedPubSub(ShardedPubSub.AUTO)
			.watchdogTimeout(HOLDER_LEASE)
			.commandTimeout(TestTimeouts.COMMAND_TIMEOUT);
		return LockTestClients.awaitConnected(this.clients.newClient(settings));
	}

	// exclusive locks and write locks of one name: their slot's fencing counter is shared
	private static List<Tokens> grants(RedisLockClient client, String name) {
		return List.of(Tokens.take(client, LockType.EXCLUSIVE, name, GRANTS),
				Tokens.take(client, LockType.WRITE, name, GRANTS));
	}

	// the slot's fencing counter, as the node has it (0 before it has any)
	private static long fenceCounter(RedisServer node, String key) {
		List<String> keys = keysInSlot(node, key).stream().filter((k) -> k.startsWith("lock:fence:")).toList();
		assertThat(keys).as("fencing counters in the slot of %s", key).hasSizeLessThanOrEqualTo(1);
		if (keys.isEmpty()) {
			return 0;
		}
		// a replica redirects reads to its master unless the connection is READONLY
		RedisClient client = RedisClient.create(RedisURI.create(node.host(), node.port()));
		try (StatefulRedisConnection<String, String> connection = client.connect()) {
			connection.sync().readOnly();
			return Long.parseLong(connection.sync().get(keys.get(0)));
		}
		finally {
			client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
		}
	}

	// the keys a node, master or replica, has in the slot of the given key
	private static List<String> keysInSlot(RedisServer node, String key) {
		String slot = node.command("CLUSTER", "KEYSLOT", key);
		return List.of(node.command("CLUSTER", "GETKEYSINSLOT", slot, "100").split("\\R"));
	}

	// a name whose lock is on another slot of the same master
	private static String otherSlotOnTheSameMaster(String name) {
		RedisServer master = redis.cluster().masterOf(key(name));
		String slot = master.command("CLUSTER", "KEYSLOT", key(name));
		while (true) {
			String other = LockTestClients.uniqueName();
			if (redis.cluster().masterOf(key(other)).port() == master.port()
					&& !master.command("CLUSTER", "KEYSLOT", key(other)).equals(slot)) {
				return other;
			}
		}
	}

	private static String key(String name) {
		return "lock:{" + name + "}";
	}

	private static String channel(String name) {
		return key(name) + ":released";
	}

	private static long shardSubscribers(int port, String channel) {
		RedisServer node = redis.cluster().nodes().stream().filter((n) -> n.port() == port).findFirst().orElseThrow();
		String reply = node.command("PUBSUB", "SHARDNUMSUB", channel);
		return Long.parseLong(reply.substring(reply.lastIndexOf('\n') + 1));
	}

	private static Duration since(long start) {
		return Duration.ofNanos(System.nanoTime() - start);
	}

	private static long micros(Duration duration) {
		return TimeUnit.NANOSECONDS.toMicros(duration.toNanos());
	}

	/** A thread of a client waiting for a lock, with time enough for any test. */
	private record Waiter(CompletableFuture<Long> acquiredAt) {

		static Waiter of(RedisLockClient client, String name) {
			return new Waiter(LockTestClients.acquiredAt(client, name, Duration.ofSeconds(120)));
		}

		Duration wokenAfter(long releasedAt) throws Exception {
			return Duration.ofNanos(this.acquiredAt.get(60, TimeUnit.SECONDS) - releasedAt);
		}

	}

}
