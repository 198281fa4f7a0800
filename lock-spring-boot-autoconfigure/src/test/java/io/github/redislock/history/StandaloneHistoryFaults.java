package io.github.redislock.history;

import java.time.Duration;
import java.util.List;

import io.github.redislock.testsupport.FaultProxy;
import io.github.redislock.testsupport.RedisServer;

/** {@link HistoryFaults#standalone}. */
final class StandaloneHistoryFaults implements HistoryFaults {

	private final RedisServer server;

	private final List<FaultProxy> proxies;

	private final Duration commandTimeout;

	StandaloneHistoryFaults(RedisServer server, List<FaultProxy> proxies, Duration commandTimeout) {
		this.server = server;
		this.proxies = proxies;
		this.commandTimeout = commandTimeout;
	}

	@Override
	public Window inject(Kind kind, int client) {
		long from = System.nanoTime();
		boolean dataLost = false;
		switch (kind) {
			case REDIS_FREEZE -> {
				this.server.pause();
				try {
					HistoryFaults.last(this.commandTimeout.plusMillis(300));
				}
				finally {
					this.server.resume();
				}
			}
			case RESTART_WITHOUT_DATA -> {
				// no client reaches Redis while the epoch changes: each hold of an epoch
				// was granted and held by one server that kept its data
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
				HistoryFaults.last(Duration.ofMillis(200));
				proxy.heal();
			}
			case PROXY_PARTITION -> {
				FaultProxy proxy = this.proxies.get(client);
				proxy.blackHole();
				HistoryFaults.last(this.commandTimeout.plusMillis(300));
				proxy.heal();
			}
			default -> throw new IllegalArgumentException(kind + " is a fault of a Cluster");
		}
		return new Window(kind, from, System.nanoTime(), dataLost);
	}

}
