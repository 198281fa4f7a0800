package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A slot being moved from one master to another, opened by
 * {@link RedisCluster#beginSlotMigration(String)}: move its keys with
 * {@link #moveKeys(int)} or {@link #moveKeysSlowly(Duration)}, then {@link #finish()}.
 */
public final class SlotMigration {

	private final int slot;

	private final RedisProcess source;

	private final RedisProcess destination;

	private final List<RedisProcess> masters;

	private final List<RedisProcess> nodes;

	private final String sourceId;

	private final String destinationId;

	SlotMigration(int slot, RedisProcess source, RedisProcess destination, List<RedisProcess> masters,
			List<RedisProcess> nodes) {
		this.slot = slot;
		this.source = source;
		this.destination = destination;
		this.masters = masters;
		this.nodes = nodes;
		this.sourceId = source.command("CLUSTER", "MYID");
		this.destinationId = destination.command("CLUSTER", "MYID");
	}

	/**
	 * Opens the slot: {@code IMPORTING} on the destination, then {@code MIGRATING} on the
	 * source.
	 */
	void open() {
		this.destination.command("CLUSTER", "SETSLOT", Integer.toString(this.slot), "IMPORTING", this.sourceId);
		this.source.command("CLUSTER", "SETSLOT", Integer.toString(this.slot), "MIGRATING", this.destinationId);
	}

	/** The slot being moved. */
	public int slot() {
		return this.slot;
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
	 * Moves up to {@code count} keys of the slot from the source to the destination in
	 * one {@code MIGRATE} ({@code CLUSTER GETKEYSINSLOT}, then {@code MIGRATE ... KEYS});
	 * each key keeps its value and its expiry. A key deleted between the two steps is
	 * skipped.
	 * @return how many keys were listed for the move; 0 once the source has none left
	 */
	private int moveKeys(int count) {
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
	 * Moves the slot's keys one at a time, pausing before each one and after the last, so
	 * that clients work against a half-moved slot for a while: some keys answer on the
	 * source, the others only after an ASK redirect.
	 * @return how many keys were listed for the move (a key deleted before its turn
	 * counts too)
	 */
	public int moveKeysSlowly(Duration pause) {
		int moved = 0;
		for (;;) {
			Polling.sleep(pause);
			int batch = moveKeys(1);
			if (batch == 0) {
				return moved;
			}
			moved += batch;
		}
	}

	/**
	 * Moves the keys that are left, hands the slot to the destination
	 * ({@code CLUSTER SETSLOT <slot> NODE <destination>} on the destination, the source
	 * and the other masters, in that order, as the Redis documentation advises), and
	 * waits until every node sees the destination as the slot's owner, with no slot left
	 * open, and reports {@code cluster_state:ok}. Clients then get MOVED redirects to the
	 * destination until they refresh their view.
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
		Polling.awaitCondition(() -> this.nodes.stream().allMatch(this::agrees),
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
			.anyMatch((line) -> RedisCluster.slotsOf(line).test(this.slot));
		return info.contains("cluster_state:ok") && !open && owned;
	}

	@Override
	public String toString() {
		return "migration of slot " + this.slot + " from " + this.source + " to " + this.destination;
	}

}
