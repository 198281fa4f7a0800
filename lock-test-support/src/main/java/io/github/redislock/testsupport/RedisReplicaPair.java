package io.github.redislock.testsupport;

import java.util.Arrays;
import java.util.function.BooleanSupplier;

/**
 * A primary and one replica, {@code redis-server} child processes on free loopback ports,
 * for failovers by hand: make the replica miss the latest writes
 * ({@link #detachReplica()}), kill the primary and promote the replica
 * ({@link #promoteReplica()}), then give the new primary a replica again
 * ({@link #startReplica()}). The roles swap at each promotion; ask {@link #primary()} for
 * the current one.
 *
 * <p>
 * The replica is attached at run time ({@code REPLICAOF}), not on its command line, so
 * that either server, restarted, comes back as a primary with what it persisted, and a
 * replica that stays up follows a primary that restarts. Full syncs start at once
 * ({@code repl-diskless-sync-delay 0}, not Redis' 5 s), so that a replica catches up with
 * a restarted primary in milliseconds.
 *
 * @since 0.1.0
 */
public final class RedisReplicaPair implements AutoCloseable {

	private static final String[] PROMPT_SYNC = { "--repl-diskless-sync-delay", "0" };

	private RedisProcess primary;

	private RedisProcess replica;

	private RedisReplicaPair(RedisProcess primary, RedisProcess replica) {
		this.primary = primary;
		this.replica = replica;
	}

	/**
	 * Starts both servers with the same arguments and waits until the replica is in sync.
	 * @param extraArguments extra {@code redis-server} arguments for both, such as
	 * {@code "--appendonly", "yes"}
	 * @return the pair, its replica in sync
	 */
	public static RedisReplicaPair start(String... extraArguments) {
		String[] arguments = Arrays.copyOf(PROMPT_SYNC, PROMPT_SYNC.length + extraArguments.length);
		System.arraycopy(extraArguments, 0, arguments, PROMPT_SYNC.length, extraArguments.length);
		RedisProcess primary = RedisProcess.start(arguments);
		RedisProcess replica = null;
		try {
			replica = RedisProcess.start(arguments);
			RedisReplicaPair pair = new RedisReplicaPair(primary, replica);
			pair.replicate();
			pair.awaitReplicaInSync();
			return pair;
		}
		catch (RuntimeException ex) {
			if (replica != null) {
				replica.close();
			}
			primary.close();
			throw ex;
		}
	}

	/** The server that takes writes now. */
	public synchronized RedisServer primary() {
		return this.primary;
	}

	/** The server that replicates the primary now (or will, once it is in sync). */
	public synchronized RedisServer replica() {
		return this.replica;
	}

	/**
	 * Waits until the replica's link to the primary is up and it has applied every write
	 * the primary had taken when this was called.
	 * @throws IllegalStateException if it is not in sync within 20 s
	 */
	public void awaitReplicaInSync() {
		RedisServer primary = primary();
		RedisServer replica = replica();
		long taken = offset(primary.command("INFO", "replication"), "master_repl_offset:");
		Polling.awaitCondition(tolerant(() -> {
			String info = replica.command("INFO", "replication");
			return info.contains("master_link_status:up") && offset(info, "slave_repl_offset:") >= taken;
		}), "the replica on port " + replica.port() + " to catch up with the primary");
	}

	/**
	 * Freezes the replica ({@code SIGSTOP}) and cuts its link at the primary
	 * ({@code CLIENT KILL TYPE replica}), so that it misses every write the primary takes
	 * from now on: frozen alone it would read them from its socket's buffer once resumed.
	 * It stays frozen until {@link #promoteReplica()}.
	 */
	public synchronized void detachReplica() {
		this.replica.pause();
		this.primary.command("CLIENT", "KILL", "TYPE", "replica");
	}

	/**
	 * Kills the primary, as a crash would, lets a {@link #detachReplica() detached}
	 * replica run again and promotes it ({@code REPLICAOF NO ONE}): it is the primary
	 * from now on, with what it had replicated. The old primary stays down until
	 * {@link #startReplica()}.
	 */
	public synchronized void promoteReplica() {
		this.primary.stop();
		this.replica.resume();
		this.replica.command("REPLICAOF", "NO", "ONE");
		RedisProcess promoted = this.replica;
		this.replica = this.primary;
		this.primary = promoted;
	}

	/**
	 * Starts the server the last {@link #promoteReplica()} killed again, without its
	 * data, as the new primary's replica. Does not wait for it to sync (see
	 * {@link #awaitReplicaInSync()}).
	 */
	public synchronized void startReplica() {
		this.replica.restartWithoutData();
		replicate();
	}

	@Override
	public synchronized void close() {
		this.replica.close();
		this.primary.close();
	}

	private void replicate() {
		this.replica.command("REPLICAOF", this.primary.host(), Integer.toString(this.primary.port()));
	}

	// a field of INFO replication; -1 while the replica does not report it yet
	private static long offset(String info, String field) {
		return info.lines()
			.filter((line) -> line.startsWith(field))
			.mapToLong((line) -> Long.parseLong(line.substring(field.length()).trim()))
			.findFirst()
			.orElse(-1);
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
