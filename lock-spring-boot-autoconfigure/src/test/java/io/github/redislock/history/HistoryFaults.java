package io.github.redislock.history;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisServer;

/**
 * The faults a history run injects into one burst, each healed before the burst goes on:
 * on a standalone Redis ({@link #standalone}) or a Redis Cluster ({@link #cluster}).
 */
interface HistoryFaults {

	/** A kind of fault. */
	enum Kind {

		REDIS_FREEZE, RESTART_WITHOUT_DATA, KILL_NORMAL, KILL_PUBSUB, SCRIPT_FLUSH, PROXY_CUT, PROXY_PARTITION,

		/** A Redis Cluster's manual failover of the lock's master: nothing is lost. */
		CLUSTER_FAILOVER,

		/**
		 * The lock's master killed and its replica promoted by the Cluster: what it had
		 * not replicated is lost, so this ends an epoch.
		 */
		CLUSTER_CRASH;

		/** The faults of a standalone Redis behind the clients' proxies. */
		static List<Kind> standalone() {
			return List.of(REDIS_FREEZE, RESTART_WITHOUT_DATA, KILL_NORMAL, KILL_PUBSUB, SCRIPT_FLUSH, PROXY_CUT,
					PROXY_PARTITION);
		}

	}

	/**
	 * A fault as it happened: from its injection to its healing, on the history's clock.
	 *
	 * @param dataLost whether Redis lost every key (exclusion holds only within an epoch)
	 */
	record Window(Kind kind, long from, long until, boolean dataLost) {
	}

	/**
	 * Injects the fault, and heals it before returning.
	 * @param client the client a fault of one client's connection hits
	 * @throws IllegalArgumentException for a kind of fault this topology does not have
	 */
	Window inject(Kind kind, int client);

	/**
	 * The faults of a standalone Redis, which each client reaches through a proxy of its
	 * own: Redis frozen past the command timeout, restarted without its data, its
	 * connections killed, its script cache flushed; one client's connections cut or
	 * partitioned at its proxy.
	 * @param proxies each client's proxy, in client order
	 * @param commandTimeout the clients' command timeout: a freeze or a partition lasts
	 * longer
	 */
	static HistoryFaults standalone(RedisServer server, List<FaultProxy> proxies, Duration commandTimeout) {
		return new StandaloneHistoryFaults(server, proxies, commandTimeout);
	}

	/**
	 * The faults of a Redis Cluster for the lock of the given key: its master failed over
	 * by hand, or killed and its replica promoted.
	 * @param key the lock's key, whose master fails
	 */
	static HistoryFaults cluster(RedisCluster cluster, String key) {
		return (kind, client) -> {
			long from = System.nanoTime();
			switch (kind) {
				case CLUSTER_CRASH -> {
					cluster.crashMasterOf(key);
					// back as a replica of the promoted one, for the next fault
					cluster.restartStoppedNodes();
					return new Window(kind, from, System.nanoTime(), true);
				}
				case CLUSTER_FAILOVER -> {
					cluster.failOverMasterOf(key);
					return new Window(kind, from, System.nanoTime(), false);
				}
				default -> throw new IllegalArgumentException(kind + " is not a fault of a Cluster");
			}
		};
	}

	/**
	 * Lets a fault last: what it is about is how long, not waiting for an outcome.
	 */
	static void last(Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

}
