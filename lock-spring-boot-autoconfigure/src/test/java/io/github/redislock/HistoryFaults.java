package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisCluster;
import io.github.redislock.testsupport.RedisServer;
import org.jspecify.annotations.Nullable;

/**
 * The faults a history run injects into one burst: Redis frozen past the command timeout,
 * restarted without its data, its connections killed, its script cache flushed; one
 * client's connections cut or partitioned at its proxy. Each client reaches Redis through
 * a proxy of its own.
 */
final class HistoryFaults {

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

	@Nullable private final RedisServer server;

	private final List<FaultProxy> proxies;

	private final Duration commandTimeout;

	@Nullable private final RedisCluster cluster;

	private final String key;

	/**
	 * @param proxies each client's proxy, in client order
	 * @param commandTimeout the clients' command timeout: a freeze or a partition lasts
	 * longer
	 */
	HistoryFaults(RedisServer server, List<FaultProxy> proxies, Duration commandTimeout) {
		this.server = server;
		this.proxies = proxies;
		this.commandTimeout = commandTimeout;
		this.cluster = null;
		this.key = "";
	}

	/**
	 * The faults of a Redis Cluster, for the lock of the given key.
	 * @param key the lock's key, whose master fails over
	 */
	HistoryFaults(RedisCluster cluster, String key) {
		this.server = null;
		this.proxies = List.of();
		this.commandTimeout = Duration.ZERO;
		this.cluster = cluster;
		this.key = key;
	}

	/** Injects the fault, and heals it before returning. */
	Window inject(Kind kind, int client) {
		long from = System.nanoTime();
		boolean dataLost = false;
		RedisCluster cluster = this.cluster;
		if (cluster != null) {
			if (kind == Kind.CLUSTER_CRASH) {
				cluster.crashMasterOf(this.key);
				dataLost = true;
				// back as a replica of the promoted one, for the next fault
				cluster.restartStoppedNodes();
			}
			else if (kind == Kind.CLUSTER_FAILOVER) {
				cluster.failOverMasterOf(this.key);
			}
			else {
				throw new IllegalArgumentException(kind + " is not a fault of a Cluster");
			}
			return new Window(kind, from, System.nanoTime(), dataLost);
		}
		RedisServer server = Objects.requireNonNull(this.server);
		switch (kind) {
			case REDIS_FREEZE -> {
				server.pause();
				try {
					pause(this.commandTimeout.plusMillis(300));
				}
				finally {
					server.resume();
				}
			}
			case RESTART_WITHOUT_DATA -> {
				// no client reaches Redis while the epoch changes: each hold of an epoch
				// was
				// granted and held by one server that kept its data
				this.proxies.forEach(FaultProxy::cut);
				try {
					server.restartWithoutData();
					dataLost = true;
				}
				finally {
					this.proxies.forEach(FaultProxy::heal);
				}
			}
			case KILL_NORMAL -> server.command("CLIENT", "KILL", "TYPE", "normal");
			case KILL_PUBSUB -> server.command("CLIENT", "KILL", "TYPE", "pubsub");
			case SCRIPT_FLUSH -> server.command("SCRIPT", "FLUSH");
			case PROXY_CUT -> {
				FaultProxy proxy = this.proxies.get(client);
				proxy.cut();
				pause(Duration.ofMillis(200));
				proxy.heal();
			}
			case PROXY_PARTITION -> {
				FaultProxy proxy = this.proxies.get(client);
				proxy.blackHole();
				pause(this.commandTimeout.plusMillis(300));
				proxy.heal();
			}
			default -> throw new IllegalArgumentException(kind + " is a fault of a Cluster");
		}
		return new Window(kind, from, System.nanoTime(), dataLost);
	}

	// the fault's length: what it is about is how long, not waiting for an outcome
	private static void pause(Duration duration) {
		long end = System.nanoTime() + duration.toNanos();
		for (long left = duration.toNanos(); left > 0; left = end - System.nanoTime()) {
			LockSupport.parkNanos(left);
		}
	}

}
