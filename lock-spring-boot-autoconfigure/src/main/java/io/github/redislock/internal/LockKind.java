package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * One kind of lock, as one unit: its key layout, its scripts and how their replies read,
 * how its leases are renewed and how its state reads for the {@code locks} endpoint. The
 * engine runs the kind's commands through {@link RedisLockCommands} (timeouts, replica
 * acknowledgement), keeps the holds, renews leases and makes waiters wait, and never
 * names a kind: it asks the kind. {@link LockType} lists the kinds.
 * <p>
 * What only some kinds can do is a capability type a kind implements
 * ({@link PassesLocally}, {@link PassesOneOfMany}, {@link KeepsForNobody},
 * {@link WaitsInLine}, {@link MarksWaiters}, {@link KeepsWaitersAlive}); a kind without
 * it simply is not one. Every key a kind touches is one of its {@link LockKeys}, in one
 * cluster slot.
 */
interface LockKind {

	/**
	 * The kind as meters, traces and the {@code locks} endpoint name it:
	 * {@code exclusive}, {@code read}, {@code write} or {@code fair}.
	 */
	String mode();

	/** The Redis names of this kind's lock of that name: its key layout. */
	LockKeys keys(String keyPrefix, String name);

	/**
	 * Sends the acquire command.
	 * @param holdsBefore the owner's holds before this acquisition, 0 for a first one
	 * @param tokens how many fencing tokens a first acquisition reserves, at least 1
	 * @param waits whether the owner waits if the lock is taken: then it tells the
	 * holder's client that another client waits
	 * @return {@link LockReply.Granted} or {@link LockReply.Busy}
	 */
	CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			Lease lease, int holdsBefore, int tokens, boolean waits);

	/**
	 * Sends the release command for one hold; the last one frees the lock and tells its
	 * waiters.
	 * @param release the owner, its grant and holds, and what the last hold leaves: a
	 * {@link Release#keep keep} other than {@link KeepForNobody#NONE} only when the kind
	 * {@link KeepsForNobody}; {@link Release#othersOnly othersOnly} only ever true for a
	 * kind that {@link PassesLocally} (its holds are the ones a wait queue tracks), so
	 * the others tell always and may ignore it; so does a {@link PassesOneOfMany} kind,
	 * whose holds wake nobody here when they end (the release message does). A kind that
	 * {@link PassesLocally} releases only the {@link Release#grant grant} named.
	 * @param yieldMillis when another client waits, how long the freed lock stays
	 * reserved for the other clients; 0 frees it for anybody
	 * @param publish how the release is announced
	 * @return {@link LockReply.Released} or {@link LockReply#NOT_HELD}
	 */
	CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Release release,
			long yieldMillis, PublishMode publish);

	/**
	 * Sends the command that sets what is left of the owner's lease.
	 * @param publish how a shortened lease is announced, for a kind whose waiters sleep
	 * until a lease end they were told (the others may ignore it)
	 * @return whether the owner held the lock, so that the lease was set
	 */
	CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis, PublishMode publish);

	/**
	 * Sends the command that frees the lock whoever holds it.
	 * @param publish how the release is announced
	 * @return whether it was taken
	 */
	CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			PublishMode publish);

	/** Sends the plain reads that tell whether anybody holds the lock. */
	CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys);

	/**
	 * Sends the reads that tell what is left of the owner's lease:
	 * {@link LockReads#NO_KEY} when it does not hold the lock, -1 without expiry. By
	 * default, the owner's field in the kind's hash and the hash's PTTL; a kind with
	 * per-holder leases reads its own.
	 */
	default CompletionStage<Long> holderLeaseMillis(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner) {
		byte[] key = ScriptCalls.bytes(keys.lockKey());
		CompletableFuture<Boolean> held = redis.hexists(key, ScriptCalls.bytes(keys.field(owner)))
			.toCompletableFuture();
		CompletableFuture<Long> ttl = redis.pttl(key).toCompletableFuture();
		return held.thenCombine(ttl,
				(h, t) -> (Boolean.TRUE.equals(h) && t != null) ? t.longValue() : Long.valueOf(LockReads.NO_KEY));
	}

	/**
	 * Sends the plain reads that tell who holds the lock, as the {@code locks} endpoint
	 * shows every kind; kinds that share a layout (a read/write lock's sides) read it
	 * alike.
	 */
	CompletionStage<KindState> state(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys);

	/**
	 * The script that renews many watchdog leases of this kind in one cluster slot: given
	 * the keys {@link #addRenewKeys} adds for each hold, {@code ARGV[1]} the lease and
	 * {@code ARGV[i + 1]} the {@link #field} of the i-th hold's owner, it answers the
	 * 1-based positions of the holds no longer held.
	 */
	@SuppressWarnings("rawtypes")
	RedisScript<List> renewal();

	/** Adds the keys the {@link #renewal()} script is given for one hold. */
	default void addRenewKeys(LockKeys keys, List<String> into) {
		into.add(keys.lockKey());
	}

	/** The owner's field in the lock's hash, its hold count. */
	default String field(Owner owner) {
		return owner.id();
	}

	/** Which of the lock's waiters a release wakes. */
	default Wakes wakes() {
		return Wakes.ONE;
	}

	/**
	 * Whether an owner that holds {@code held} of the same name already holds this kind
	 * too (a writer reads), so that taking it is a re-entry that needs nothing more.
	 */
	default boolean isCoveredBy(LockKind held) {
		return false;
	}

	/**
	 * Whether an owner that holds {@code held} of the same name would wait for itself if
	 * it took this kind (a reader that asks to write).
	 */
	default boolean waitsForItselfHolding(LockKind held) {
		return false;
	}

	/** Which waiters a release message wakes. */
	enum Wakes {

		/** The one asleep longest: one owner can have it next. */
		ONE,

		/** Every waiter: a shared lock lets them all in. */
		ALL,

		/** The waiter the message names, whose turn it is. */
		NAMED

	}

	/**
	 * A kind whose lock the client may pass among its own owners without freeing it in
	 * Redis (see {@link LocalRun}).
	 */
	interface PassesLocally extends LockKind {

		/**
		 * Sends the command that lets this client go on passing a lock it holds among its
		 * own owners without freeing it in Redis, or gives the lock up when another
		 * client waits for it.
		 * @param holder the owner Redis knows as the holder, and the grant the run speaks
		 * for: passed on only while Redis holds that grant
		 * @param tokens how many fencing tokens to reserve
		 * @param yieldMillis how long a lock given up stays reserved for other clients
		 * @param giveUp whether to give the lock up when another client waits; if not,
		 * the reply only says so (asked ahead of time, while an owner of this client
		 * still holds the lock)
		 * @param publish how a lock given up is announced
		 * @return {@link LockReply.Granted} with the first reserved token to go on;
		 * {@link LockReply.Released} when another client waits (the lock was given up if
		 * {@code giveUp}); {@link LockReply#NOT_HELD} when the holder no longer holds it
		 */
		CompletionStage<LockReply> continueRun(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
				Grant holder, int tokens, Lease lease, long yieldMillis, boolean giveUp, PublishMode publish);

	}

	/**
	 * A kind that {@link PassesLocally passes locally} although several owners hold it at
	 * once, each in its own place in Redis (a semaphore's permits): a pass hands one
	 * holder's place to a waiter of this client, and leaves the other holders, of this
	 * client or another, alone.
	 * <p>
	 * The engine treats such a run differently in three ways. Other holders may be
	 * granted from Redis while the run goes on, so a block of tokens reserved at the
	 * run's start could fall below a token granted and released since: every pass asks
	 * Redis for its token ({@link #continueRun} with one token), and the acquisition
	 * reserves one. Another holder here says nothing about whether a place is free in
	 * Redis, so owners of this client never wait for a pass instead of asking Redis (they
	 * {@link WaitsInLine wait in line}). And Redis does not tell the kind whether other
	 * clients wait, so a run ends, its place freed in Redis and announced to every
	 * client's waiters, after {@code maxLocalPasses} passes, whoever waits.
	 */
	interface PassesOneOfMany extends PassesLocally {

	}

	/**
	 * A kind whose release may keep the lock taken for nobody for a while
	 * ({@code holdAtLeast}).
	 */
	interface KeepsForNobody extends LockKind {

	}

	/**
	 * A kind whose callers of one client wait in line: a caller that has not asked Redis
	 * yet waits behind the client's callers already waiting (see
	 * {@link WaitQueue#inLineNanos()}). For a kind that lets several hold at once (a
	 * semaphore): each release that frees a place in Redis wakes one waiter of the
	 * client, and a caller that asked at once, typically the thread that just released
	 * and comes back, would take the permit that waiter was woken for, leaving it an
	 * attempt in vain (and, when it happens again and again, no turn at all); a release
	 * that passes its place on hands it to the waiter in line first.
	 */
	interface WaitsInLine extends LockKind {

	}

	/**
	 * A kind whose waiter leaves a mark in Redis that it withdraws when it stops waiting
	 * without the lock.
	 */
	interface MarksWaiters extends LockKind {

		/**
		 * Sends the command that withdraws a waiter's mark.
		 * @param publish how waiters the mark kept out are told, for a kind that tells
		 * them
		 */
		CompletionStage<?> withdraw(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
				PublishMode publish);

	}

	/**
	 * A kind whose waiters' places in Redis their client renews (see
	 * {@link WaiterHeartbeats}).
	 */
	interface KeepsWaitersAlive extends MarksWaiters {

		/**
		 * Sends the command that renews the places of the given waiting owners.
		 * @param publish how the waiter whose turn it is gets named when the lock is free
		 * @return the owners no longer waiting in Redis
		 */
		CompletionStage<List<Object>> keepAlive(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
				List<String> owners, PublishMode publish);

		/** How long a waiter keeps its place without a renewal. */
		long aliveMillis();

	}

}
