package io.github.redislock;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServer;

/**
 * The faults a history run injects into one burst: Redis frozen past the command timeout,
 * restarted without its data, its connections killed, its script cache flushed; one
 * client's connections cut or partitioned at its proxy. Each client reaches Redis through
 * a proxy of its own.
 */
final class HistoryFaults {

	/** A kind of fault. */
	enum Kind {

		REDIS_FREEZE, RESTART_WITHOUT_DATA, KILL_NORMAL, KILL_PUBSUB, SCRIPT_FLUSH, PROXY_CUT, PROXY_PARTITION

	}

	/**
	 * A fault as it happened: from its injection to its healing, on the history's clock.
	 *
	 * @param dataLost whether Redis lost every key (exclusion holds only within an epoch)
	 */
	record Window(Kind kind, long from, long until, boolean dataLost) {
	}

	private final RedisServer server;

	private final List<FaultProxy> proxies;

	private final Duration commandTimeout;

	/**
	 * @param proxies each client's proxy, in client order
	 * @param commandTimeout the clients' command timeout: a freeze or a partition lasts
	 * longer
	 */
	HistoryFaults(RedisServer server, List<FaultProxy> proxies, Duration commandTimeout) {
		this.server = server;
		this.proxies = proxies;
		this.commandTimeout = commandTimeout;
	}

	/** Injects the fault, and heals it before returning. */
	Window inject(Kind kind, int client) {
		long from = System.nanoTime();
		boolean dataLost = false;
		switch (kind) {
			case REDIS_FREEZE -> {
				this.server.pause();
				try {
					pause(this.commandTimeout.plusMillis(300));
				}
				finally {
					this.server.resume();
				}
			}
			case RESTART_WITHOUT_DATA -> {
				// no client reaches Redis while the epoch changes: each hold of an epoch
				// was
				// granted and held by one server that kept its data
				this.proxies.forEach(FaultProxy::cut);
				try {
					this.server.restartWithoutData();
					dataLost = true;
				}
				finally {
					this.proxies.forEach(FaultProxy::heal);
				}
			}
			case KILL_NORMAL -> this.server.command("CLIENT", "KILL", "TYPE", "normal");
			case KILL_PUBSUB -> this.server.command("CLIENT", "KILL", "TYPE", "pubsub");
			case SCRIPT_FLUSH -> this.server.command("SCRIPT", "FLUSH");
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
