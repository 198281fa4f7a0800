package io.github.redislock.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntPredicate;

/**
 * A Redis Cluster of masters, each a {@code redis-server} child process on a free
 * loopback port, joined with {@code redis-cli --cluster create}. The test owns it and
 * closes it.
 */
public final class RedisCluster implements AutoCloseable {

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
		String cli = RedisProcess.findExecutable("redis-cli");
		if (cli == null) {
			throw new IllegalStateException("A Redis Cluster test needs 'redis-cli' next to redis-server; install "
					+ "Redis, e.g. 'sudo apt-get install -y redis-server'");
		}
		List<RedisProcess> nodes = new ArrayList<>();
		try {
			for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
				nodes.add(RedisProcess.start("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
						"--cluster-node-timeout", "2000"));
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
		awaitCondition(() -> replica.command("INFO", "replication").contains("master_link_status:up"),
				"the replica to sync");
		for (int attempt = 1; !replica.command("ROLE").startsWith("master"); attempt++) {
			replica.command("CLUSTER", "FAILOVER");
			if (awaitQuietly(() -> replica.command("ROLE").startsWith("master"), 10) || attempt == 3) {
				break;
			}
		}
		awaitCondition(() -> replica.command("ROLE").startsWith("master"), "the replica to take over");
		awaitState("ok");
		return replica.port();
	}

	/**
	 * The replica of the master serving the given key, once it has synchronized, to look
	 * at what reached it or to pause it.
	 */
	public RedisServer replicaOfMasterOf(String key) {
		RedisProcess replica = replicaProcessOfMasterOf(key);
		awaitCondition(() -> replica.command("INFO", "replication").contains("master_link_status:up"),
				"the replica to sync");
		return replica;
	}

	private RedisProcess replicaProcessOfMasterOf(String key) {
		int slot = Integer.parseInt(this.nodes.get(0).command("CLUSTER", "KEYSLOT", key));
		RedisProcess master = null;
		for (RedisProcess node : this.nodes) {
			if (node.command("ROLE").startsWith("master") && servesSlot(node, slot)) {
				master = node;
			}
		}
		if (master == null) {
			throw new IllegalStateException("No master serves slot " + slot);
		}
		String masterId = master.command("CLUSTER", "MYID");
		for (RedisProcess node : this.nodes) {
			if (node.command("ROLE").startsWith("slave") && node.command("CLUSTER", "NODES")
				.lines()
				.anyMatch((line) -> line.contains("myself") && line.contains(masterId))) {
				return node;
			}
		}
		throw new IllegalStateException("The master of slot " + slot + " has no replica");
	}

	/**
	 * Migrates the slot of the given key to another master with one call, the way
	 * {@code redis-cli --cluster reshard} does, but one key at a time with a pause before
	 * each key and before the hand-over: clients that keep working meanwhile get ASK
	 * redirects (and TRYAGAIN for scripts whose keys are split) for as long as the slot
	 * is open. Returns once every node agrees on the new owner.
	 * @param key a key of the slot to move
	 * @param pause how long to leave the slot open before each key moves and before the
	 * slot is handed over
	 * @return the port of the master that serves the slot now
	 */
	public int migrateSlotOf(String key, Duration pause) {
		SlotMigration migration = beginSlotMigration(key);
		migration.moveKeysSlowly(pause);
		migration.finish();
		return migration.destination().port();
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
		int slot = Integer.parseInt(this.nodes.get(0).command("CLUSTER", "KEYSLOT", key));
		List<RedisProcess> masters = this.nodes.stream()
			.filter((node) -> node.command("ROLE").startsWith("master"))
			.toList();
		RedisProcess source = masters.stream()
			.filter((node) -> servesSlot(node, slot))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
		// the next master after the source, so that the destination is always another one
		RedisProcess destination = masters.get((masters.indexOf(source) + 1) % masters.size());
		SlotMigration migration = new SlotMigration(slot, source, destination, masters, this.nodes);
		destination.command("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", migration.sourceId);
		source.command("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", migration.destinationId);
		return migration;
	}

	private static boolean servesSlot(RedisProcess node, int slot) {
		return node.command("CLUSTER", "NODES")
			.lines()
			.filter((line) -> line.contains("myself"))
			.anyMatch((line) -> slotsOf(line).test(slot));
	}

	/** The slots a line of {@code CLUSTER NODES} assigns to its node. */
	private static IntPredicate slotsOf(String line) {
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

	/**
	 * A slot being moved from one master to another, opened by
	 * {@link RedisCluster#beginSlotMigration(String)}: move its keys with
	 * {@link #moveKeys(int)} or {@link #moveKeysSlowly(Duration)}, then
	 * {@link #finish()}.
	 */
	public static final class SlotMigration {

		private final int slot;

		private final RedisProcess source;

		private final RedisProcess destination;

		private final List<RedisProcess> masters;

		private final List<RedisProcess> nodes;

		private final String sourceId;

		private final String destinationId;

		private SlotMigration(int slot, RedisProcess source, RedisProcess destination, List<RedisProcess> masters,
				List<RedisProcess> nodes) {
			this.slot = slot;
			this.source = source;
			this.destination = destination;
			this.masters = masters;
			this.nodes = nodes;
			this.sourceId = source.command("CLUSTER", "MYID");
			this.destinationId = destination.command("CLUSTER", "MYID");
		}

		/** The slot being moved. */
		public int slot() {
			return this.slot;
		}

		/** The master that served the slot, to ask it directly. */
		public RedisServer source() {
			return this.source;
		}

		/** The master that serves the slot once the migration is finished. */
		public RedisServer destination() {
			return this.destination;
		}

		/**
		 * How many keys of the slot are still on the source
		 * ({@code CLUSTER COUNTKEYSINSLOT}).
		 */
		public int keysLeftOnSource() {
			return Integer.parseInt(this.source.command("CLUSTER", "COUNTKEYSINSLOT", Integer.toString(this.slot)));
		}

		/**
		 * Moves up to {@code count} keys of the slot from the source to the destination
		 * in one {@code MIGRATE} ({@code CLUSTER GETKEYSINSLOT}, then
		 * {@code MIGRATE ... KEYS}); each key keeps its value and its expiry. A key
		 * deleted between the two steps is skipped.
		 * @return how many keys were listed for the move; 0 once the source has none left
		 */
		public int moveKeys(int count) {
			String listed = this.source.command("CLUSTER", "GETKEYSINSLOT", Integer.toString(this.slot),
					Integer.toString(count));
			if (listed.isEmpty()) {
				return 0;
			}
			List<String> keys = listed.lines().toList();
			List<String> command = new ArrayList<>(List.of("MIGRATE", this.destination.host(),
					Integer.toString(this.destination.port()), "", "0", "5000", "KEYS"));
			command.addAll(keys);
			this.source.command(command.toArray(String[]::new));
			return keys.size();
		}

		/**
		 * Moves the slot's keys one at a time, pausing before each one and after the
		 * last, so that clients work against a half-moved slot for a while: some keys
		 * answer on the source, the others only after an ASK redirect.
		 * @return how many keys were listed for the move (a key deleted before its turn
		 * counts too)
		 */
		public int moveKeysSlowly(Duration pause) {
			int moved = 0;
			for (;;) {
				sleep(pause);
				int batch = moveKeys(1);
				if (batch == 0) {
					return moved;
				}
				moved += batch;
			}
		}

		/**
		 * Moves the keys that are left, hands the slot to the destination
		 * ({@code CLUSTER SETSLOT <slot> NODE <destination>} on the destination, the
		 * source and the other masters, in that order, as the Redis documentation
		 * advises), and waits until every node sees the destination as the slot's owner,
		 * with no slot left open, and reports {@code cluster_state:ok}. Clients then get
		 * MOVED redirects to the destination until they refresh their view.
		 */
		public void finish() {
			while (moveKeys(100) > 0) {
				// until the source has none left; new keys of the slot are created on
				// the destination (ASK), so this ends
			}
			List<RedisProcess> order = new ArrayList<>(List.of(this.destination, this.source));
			this.masters.stream().filter((node) -> !order.contains(node)).forEach(order::add);
			for (RedisProcess node : order) {
				node.command("CLUSTER", "SETSLOT", Integer.toString(this.slot), "NODE", this.destinationId);
			}
			awaitCondition(() -> this.nodes.stream().allMatch(this::agrees),
					"every node to see slot " + this.slot + " on " + this.destination);
		}

		private boolean agrees(RedisProcess node) {
			String info = node.command("CLUSTER", "INFO");
			List<String> lines = node.command("CLUSTER", "NODES").lines().toList();
			String slotText = Integer.toString(this.slot);
			// an open slot shows as [slot->-id] or [slot-<-id] on the node that has it
			boolean open = lines.stream().anyMatch((line) -> line.contains("[" + slotText + "-"));
			boolean owned = lines.stream()
				.filter((line) -> line.startsWith(this.destinationId + " "))
				.anyMatch((line) -> slotsOf(line).test(this.slot));
			return info.contains("cluster_state:ok") && !open && owned;
		}

		@Override
		public String toString() {
			return "migration of slot " + this.slot + " from " + this.source + " to " + this.destination;
		}

	}

	@Override
	public void close() {
		this.nodes.forEach(RedisProcess::close);
	}

	private void awaitState(String state) {
		awaitCondition(
				() -> this.nodes.stream()
					.allMatch((node) -> node.command("CLUSTER", "INFO").contains("cluster_state:" + state)),
				"cluster_state:" + state);
	}

	private static void awaitCondition(BooleanSupplier condition, String what) {
		if (!awaitQuietly(condition, 20)) {
			throw new IllegalStateException("Timed out after 20s waiting for " + what);
		}
	}

	private static void sleep(Duration pause) {
		try {
			Thread.sleep(pause.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

	private static boolean awaitQuietly(BooleanSupplier condition, int seconds) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		while (System.nanoTime() < deadline) {
			if (condition.getAsBoolean()) {
				return true;
			}
			try {
				Thread.sleep(50);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
		}
		return false;
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
