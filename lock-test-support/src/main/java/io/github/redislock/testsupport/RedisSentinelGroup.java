package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * A master, one replica and three sentinels watching them under the name
 * {@value #MASTER_NAME}, all {@code redis-server} child processes on free loopback ports.
 * Kill the master to make the sentinels promote the replica.
 */
public final class RedisSentinelGroup implements AutoCloseable {

	/** The name the sentinels know the master by. */
	public static final String MASTER_NAME = "locks";

	private final RedisProcess master;

	private final RedisProcess replica;

	private final List<RedisProcess> sentinels;

	private RedisSentinelGroup(RedisProcess master, RedisProcess replica, List<RedisProcess> sentinels) {
		this.master = master;
		this.replica = replica;
		this.sentinels = sentinels;
	}

	/**
	 * Starts the group and waits until the replica is in sync and every sentinel sees the
	 * master.
	 * @param downAfterMillis how long a master must not answer before a sentinel thinks
	 * it is down
	 */
	public static RedisSentinelGroup start(long downAfterMillis) {
		RedisProcess master = RedisProcess.start(new String[0]);
		RedisProcess replica = null;
		List<RedisProcess> sentinels = new ArrayList<>();
		try {
			replica = RedisProcess.start("--replicaof", master.host(), Integer.toString(master.port()));
			for (int i = 0; i < 3; i++) {
				sentinels.add(RedisProcess.startSentinel(
						List.of("sentinel monitor " + MASTER_NAME + " " + master.host() + " " + master.port() + " 2",
								"sentinel down-after-milliseconds " + MASTER_NAME + " " + downAfterMillis,
								"sentinel failover-timeout " + MASTER_NAME + " 10000",
								"sentinel parallel-syncs " + MASTER_NAME + " 1")));
			}
			RedisProcess syncing = replica;
			Polling.awaitCondition(
					tolerant(() -> syncing.command("INFO", "replication").contains("master_link_status:up")),
					"the replica to sync");
			Polling.awaitCondition(tolerant(() -> sentinels.stream()
				.allMatch((sentinel) -> sentinel.command("SENTINEL", "REPLICAS", MASTER_NAME).contains("slave"))),
					"the sentinels to discover the replica");
			return new RedisSentinelGroup(master, replica, sentinels);
		}
		catch (RuntimeException ex) {
			sentinels.forEach(RedisProcess::close);
			if (replica != null) {
				replica.close();
			}
			master.close();
			throw ex;
		}
	}

	/**
	 * The sentinels, as {@code host:port}, for {@code spring.data.redis.sentinel.nodes}.
	 */
	public List<String> sentinelAddresses() {
		return this.sentinels.stream().map((sentinel) -> sentinel.host() + ":" + sentinel.port()).toList();
	}

	/** The first master. */
	public RedisServer master() {
		return this.master;
	}

	/**
	 * The first replica: pause it, or cut its link ({@code CLIENT KILL TYPE replica} on
	 * the master), to make it miss writes before the master dies.
	 */
	public RedisServer replica() {
		return this.replica;
	}

	/** The port of the server the sentinels currently name as master. */
	public int currentMasterPort() {
		String[] address = this.sentinels.get(0)
			.command("SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME)
			.split("\n");
		return Integer.parseInt(address[1]);
	}

	@Override
	public void close() {
		this.sentinels.forEach(RedisProcess::close);
		this.replica.close();
		this.master.close();
	}

	// a server that is still starting answers with an error: not yet
	private static BooleanSupplier tolerant(BooleanSupplier condition) {
		return () -> {
			try {
				return condition.getAsBoolean();
			}
			catch (RuntimeException notYet) {
				return false;
			}
		};
	}

}
