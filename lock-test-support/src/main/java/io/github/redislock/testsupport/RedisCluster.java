package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.IntPredicate;

/**
 * A Redis Cluster of masters, optionally with replicas, each a {@code redis-server} child
 * process on a free loopback port, joined with {@code redis-cli --cluster create}. A test
 * can fail a master over, crash one, or migrate a slot ({@link SlotMigration}). The test
 * owns the cluster and closes it.
 */
public final class RedisCluster implements AutoCloseable {

	/**
	 * How long a node stays silent before the others mark it failed and its replica is
	 * promoted: short, so that a test of a crash takes seconds.
	 */
	static final long NODE_TIMEOUT_MILLIS = 2000;

	private final List<RedisProcess> nodes;

	private RedisCluster(List<RedisProcess> nodes) {
		this.nodes = nodes;
	}

	/**
	 * Starts a cluster and waits until every node reports {@code cluster_state:ok}.
	 * @param masters how many masters (at least 3)
	 */
	public static RedisCluster start(int masters) {
		return start(masters, 0);
	}

	/**
	 * Starts a cluster with replicas and waits until every node reports
	 * {@code cluster_state:ok}.
	 * @param masters how many masters (at least 3)
	 * @param replicasPerMaster how many replicas each master gets
	 */
	public static RedisCluster start(int masters, int replicasPerMaster) {
		return start(masters, replicasPerMaster, RedisProcess::start);
	}

	/**
	 * Starts a cluster whose nodes run the given {@code redis-server} rather than the
	 * installed one, e.g. an older Redis whose commands a client must do without, and
	 * waits until every node reports {@code cluster_state:ok}. The installed
	 * {@code redis-cli} still joins them.
	 * @param masters how many masters (at least 3)
	 * @param replicasPerMaster how many replicas each master gets
	 * @param redisServer the {@code redis-server} executable every node runs
	 * @since 0.1.0
	 */
	public static RedisCluster start(int masters, int replicasPerMaster, Path redisServer) {
		return start(masters, replicasPerMaster, (arguments) -> RedisProcess.start(redisServer, arguments));
	}

	private static RedisCluster start(int masters, int replicasPerMaster,
			Function<String[], RedisProcess> nodeStarter) {
		String cli = RedisProcess.findExecutable("redis-cli");
		if (cli == null) {
			throw new IllegalStateException("A Redis Cluster test needs 'redis-cli' next to redis-server; install "
					+ "Redis, e.g. 'sudo apt-get install -y redis-server'");
		}
		List<RedisProcess> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				nodes.add(nodeStarter.apply(new String[] { "--cluster-enabled", "yes", "--cluster-config-file",
						"nodes.conf", "--cluster-node-timeout", Long.toString(NODE_TIMEOUT_MILLIS) }));
			}
			List<String> command = new ArrayList<>(List.of(cli, "--cluster", "create"));
			for (RedisProcess node : nodes) {
				command.add(node.host() + ":" + node.port());
			}
			command.addAll(List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
			run(command);
			RedisCluster cluster = new RedisCluster(nodes);
			cluster.awaitState("ok");
			return cluster;
		}
		catch (RuntimeException ex) {
			nodes.forEach(RedisProcess::close);
			throw ex;
		}
	}

	/** The nodes, as {@code host:port}, for {@code spring.data.redis.cluster.nodes}. */
	public List<String> nodeAddresses() {
		return this.nodes.stream().map((node) -> node.host() + ":" + node.port()).toList();
	}

	/** The nodes themselves, to send commands to or to stop. */
	public List<RedisServer> nodes() {
		return List.copyOf(this.nodes);
	}

	/**
	 * Makes a replica of the master serving the given key take over, the way an operator
	 * does with {@code CLUSTER FAILOVER} (the replica catches up first, so no write is
	 * lost), and waits until it has.
	 * @return the port of the new master
	 */
	public int failOverMasterOf(String key) {
		RedisProcess replica = replicaProcessOfMasterOf(key);
		// a manual failover only happens once the replica has caught up; it can also be
		// aborted when the master is slow to pause its clients, so try a few times
		Polling.awaitCondition(() -> replica.command("INFO", "replication").contains("master_link_status:up"),
				"the replica to sync");
		for (int attempt = 1; !replica.command("ROLE").startsWith("master"); attempt++) {
			replica.command("CLUSTER", "FAILOVER");
			if (Polling.awaitQuietly(() -> replica.command("ROLE").startsWith("master"), 10) || attempt == 3) {
				break;
			}
		}
		Polling.awaitCondition(() -> replica.command("ROLE").startsWith("master"), "the replica to take over");
		awaitState("ok");
		return replica.port();
	}

	/**
	 * Kills the master serving the given key ({@code SIGKILL}, as a crash would) and
	 * waits until the Cluster's own failure detection has promoted its replica: the other
	 * masters mark the master failed once it stayed silent for the node timeout
	 * ({@value #NODE_TIMEOUT_MILLIS} ms), then the replica wins an election. The killed
	 * node stays down until {@link #restartStoppedNodes()}.
	 * @return the port of the new master
	 */
	public int crashMasterOf(String key) {
		RedisProcess replica = replicaProcessOfMasterOf(key);
		masterProcessOf(key).stop();
		Polling.awaitCondition(() -> replica.command("ROLE").startsWith("master"),
				"the replica to be promoted by failure detection");
		awaitState("ok");
		return replica.port();
	}

	/**
	 * Makes a replica whose master is gone take over at once with
	 * {@code CLUSTER FAILOVER TAKEOVER}: without the other masters' agreement and without
	 * catching up first, so whatever it missed of its master is lost, as when an operator
	 * forces a replica up after its master crashed.
	 * @param replica a replica whose master was stopped
	 */
	public void takeOver(RedisServer replica) {
		// the replica's own failure detection may promote it first
		while (!replica.command("ROLE").startsWith("master")) {
			try {
				replica.command("CLUSTER", "FAILOVER", "TAKEOVER");
			}
			catch (RuntimeException ex) {
				// promoted between the two commands
			}
			Polling.awaitQuietly(() -> replica.command("ROLE").startsWith("master"), 5);
		}
		awaitState("ok");
	}

	/** The master serving the given key, to send it commands or to stop it. */
	public RedisServer masterOf(String key) {
		return masterProcessOf(key);
	}

	/**
	 * Resumes paused nodes and starts stopped ones again, with their cluster
	 * configuration: a stopped master, replaced meanwhile ({@link #crashMasterOf},
	 * {@link #takeOver}), rejoins as a replica of the node that took over from it. A
	 * started node is waited for until it is a synchronized replica, so that the next
	 * test finds every master with a replica and no stale master.
	 */
	public void restartStoppedNodes() {
		List<RedisProcess> started = new ArrayList<>();
		for (RedisProcess node : this.nodes) {
			node.resume();
			if (!node.isRunning()) {
				node.start();
				started.add(node);
			}
		}
		for (RedisProcess node : started) {
			Polling.awaitCondition(
					() -> node.command("ROLE").startsWith("slave")
							&& node.command("INFO", "replication").contains("master_link_status:up"),
					node + " to rejoin as a synchronized replica");
		}
		awaitState("ok");
	}

	/**
	 * The replica of the master serving the given key, once it has synchronized, to look
	 * at what reached it or to pause it.
	 */
	public RedisServer replicaOfMasterOf(String key) {
		RedisProcess replica = replicaProcessOfMasterOf(key);
		Polling.awaitCondition(() -> replica.command("INFO", "replication").contains("master_link_status:up"),
				"the replica to sync");
		return replica;
	}

	private RedisProcess masterProcessOf(String key) {
		int slot = slotOf(key);
		for (RedisProcess node : runningNodes()) {
			if (node.command("ROLE").startsWith("master") && servesSlot(node, slot)) {
				return node;
			}
		}
		throw new IllegalStateException("No master serves slot " + slot);
	}

	private RedisProcess replicaProcessOfMasterOf(String key) {
		RedisProcess master = masterProcessOf(key);
		String masterId = master.command("CLUSTER", "MYID");
		for (RedisProcess node : runningNodes()) {
			if (node.command("ROLE").startsWith("slave") && node.command("CLUSTER", "NODES")
				.lines()
				.anyMatch((line) -> line.contains("myself") && line.contains(masterId))) {
				return node;
			}
		}
		throw new IllegalStateException("The master of slot " + slotOf(key) + " has no running replica");
	}

	/**
	 * Opens the slot of the given key for migration from the master that serves it to
	 * another master: {@code CLUSTER SETSLOT IMPORTING} on the destination, then
	 * {@code MIGRATING} on the source. From now on until {@link SlotMigration#finish()},
	 * a command for a key of the slot that is no longer (or not yet) on the source is
	 * redirected to the destination with ASK, and a multi-key command (a script) whose
	 * keys are split between the two fails with TRYAGAIN, as during an operator's
	 * resharding. Keys move only when the returned migration is told to, so a test
	 * decides how long that window lasts.
	 * @param key a key of the slot to move
	 * @return the migration, to move the keys and finish it
	 */
	public SlotMigration beginSlotMigration(String key) {
		int slot = slotOf(key);
		List<RedisProcess> masters = runningNodes().stream()
			.filter((node) -> node.command("ROLE").startsWith("master"))
			.toList();
		RedisProcess source = masters.stream()
			.filter((node) -> servesSlot(node, slot))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
		// the next master after the source, so that the destination is always another one
		RedisProcess destination = masters.get((masters.indexOf(source) + 1) % masters.size());
		SlotMigration migration = new SlotMigration(slot, source, destination, masters, this.nodes);
		migration.open();
		return migration;
	}

	private static boolean servesSlot(RedisProcess node, int slot) {
		return node.command("CLUSTER", "NODES")
			.lines()
			.filter((line) -> line.contains("myself"))
			.anyMatch((line) -> slotsOf(line).test(slot));
	}

	/** The slots a line of {@code CLUSTER NODES} assigns to its node. */
	static IntPredicate slotsOf(String line) {
		String[] fields = line.split(" ");
		return (slot) -> {
			// id, address, flags, master, ping, pong, epoch, link state, then the slots
			for (int i = 8; i < fields.length; i++) {
				String field = fields[i];
				if (field.matches("\\d+-\\d+")) {
					String[] range = field.split("-");
					if (slot >= Integer.parseInt(range[0]) && slot <= Integer.parseInt(range[1])) {
						return true;
					}
				}
				else if (field.matches("\\d+") && Integer.parseInt(field) == slot) {
					return true;
				}
			}
			return false;
		};
	}

	@Override
	public void close() {
		this.nodes.forEach(RedisProcess::close);
	}

	// a node stopped or paused by a test is not asked
	private List<RedisProcess> runningNodes() {
		return this.nodes.stream().filter(RedisProcess::isRunning).toList();
	}

	private int slotOf(String key) {
		return Integer.parseInt(runningNodes().get(0).command("CLUSTER", "KEYSLOT", key));
	}

	private void awaitState(String state) {
		Polling.awaitCondition(
				() -> runningNodes().stream()
					.allMatch((node) -> node.command("CLUSTER", "INFO").contains("cluster_state:" + state)),
				"cluster_state:" + state);
	}

	private static void run(List<String> command) {
		try {
			Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
			String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
			if (!process.waitFor(30, TimeUnit.SECONDS) || process.exitValue() != 0) {
				throw new IllegalStateException("'" + String.join(" ", command) + "' failed:\n" + output);
			}
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
