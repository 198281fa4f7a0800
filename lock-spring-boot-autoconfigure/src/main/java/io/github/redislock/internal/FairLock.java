package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The fair lock: granted in the order its waiters first asked, across all clients. A
 * waiter queues in Redis at its first attempt (a sorted set of tickets) and stays queued
 * while its client renews its place, every {@link #RECHECK_MILLIS} for all its waiters at
 * once ({@link WaiterHeartbeats}); one whose process died counts as gone
 * {@link #ALIVE_MILLIS} after that and is dropped by the next script. A release names the
 * next waiter in its message, so that only its client wakes it; one with a
 * {@code holdAtLeast} keeps the lock taken for nobody until then, and the next waiter
 * sleeps until it expires. The scripts, {@code fair-lock.lua}, {@code fair-unlock.lua}
 * and {@code fair-withdraw.lua}, document keys, arguments and replies.
 */
final class FairLock implements LockKind.KeepsForNobody, LockKind.KeepsWaitersAlive {

	static final FairLock INSTANCE = new FairLock();

	/** How long a waiter counts as alive after an attempt or a heartbeat. */
	static final long ALIVE_MILLIS = TimeUnit.SECONDS.toMillis(6);

	/**
	 * How often a client renews its waiters' places ({@link WaiterHeartbeats}), and how
	 * long a waiter waits at most when the lock is free but another's turn.
	 */
	static final long RECHECK_MILLIS = WaiterHeartbeats.PERIOD_MILLIS;

	/**
	 * How long a waiter sleeps at most while the lock is held, unless the release that
	 * names it, or a heartbeat that finds the lock free, wakes it first.
	 */
	static final long HELD_SLEEP_MILLIS = TimeUnit.SECONDS.toMillis(30);

	/**
	 * Acquire, re-enter or queue: the fencing token, or minus how long to wait at most.
	 */
	private static final RedisScript<Long> LOCK = LockScripts.load("fair-lock.lua", Long.class);

	/** Release one hold: holds left, 0 when freed, -1 when not held. */
	private static final RedisScript<Long> UNLOCK = LockScripts.load("fair-unlock.lua", Long.class);

	/** Renew many waiters' places: the owners no longer queued. */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> HEARTBEAT = LockScripts.load("fair-heartbeat.lua", List.class);

	/** Leave the queue: 1 when queued. */
	private static final RedisScript<Long> WITHDRAW = LockScripts.load("fair-withdraw.lua", Long.class);

	private FairLock() {
	}

	@Override
	public String mode() {
		return "fair";
	}

	@Override
	public LockKeys keys(String keyPrefix, String name) {
		String lockKey = LockKeys.lockKey(keyPrefix, name, ":fair");
		return LockKeys.of(name, lockKey, lockKey + ":released", this, lockKey,
				List.of(lockKey, queueKey(lockKey), heartbeatsKey(lockKey), LockKeys.fenceKey(keyPrefix, lockKey)));
	}

	// a hash of owners, as the exclusive lock's
	@Override
	@SuppressWarnings("rawtypes")
	public RedisScript<List> renewal() {
		return ExclusiveLock.RENEW;
	}

	@Override
	public Wakes wakes() {
		return Wakes.NAMED;
	}

	/** The waiters in turn order. */
	static String queueKey(String lockKey) {
		return lockKey + ":queue";
	}

	/** When each waiter counts as gone. */
	static String heartbeatsKey(String lockKey) {
		return lockKey + ":alive";
	}

	@Override
	public CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits) {
		return ScriptCalls
			.<Long>script(redis, LOCK, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), lease.argument(),
					owner.argument(), ScriptCalls.number(holdsBefore), ScriptCalls.flag(waits),
					ScriptCalls.number(ALIVE_MILLIS), ScriptCalls.number(RECHECK_MILLIS),
					ScriptCalls.number(HELD_SLEEP_MILLIS))
			.thenApply(ReadWriteLocks::acquired);
	}

	@Override
	public CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Release release, long yieldMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, UNLOCK, ScriptOutputType.INTEGER,
					ScriptCalls.keys(List.of(keys.lockKey(), queueKey(keys.lockKey()))), release.owner().argument(),
					publish.argument(), ScriptCalls.number(release.holdsBefore()),
					ScriptCalls.number(release.keep().millis()), ScriptCalls.number(release.keep().untilMicros()),
					keys.channelBytes())
			.thenApply(LockReply::released);
	}

	@Override
	public CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis, PublishMode publish) {
		// a hash of owners, as the exclusive lock's
		return ExclusiveLock.INSTANCE.extend(redis, keys, owner, leaseMillis, publish);
	}

	@Override
	public CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			PublishMode publish) {
		return ExclusiveLock.INSTANCE.forceRelease(redis, keys, publish);
	}

	@Override
	public CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return redis.exists(ScriptCalls.bytes(keys.lockKey())).thenApply((exists) -> exists != null && exists > 0);
	}

	@Override
	public CompletionStage<?> withdraw(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			PublishMode publish) {
		return ScriptCalls.script(redis, WITHDRAW, ScriptOutputType.INTEGER, queueKeys(keys), owner.argument(),
				publish.argument(), keys.channelBytes());
	}

	@Override
	public CompletionStage<KindState> state(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return KindReads.read(redis, keys, queueKey(keys.lockKey()))
			.thenApply((replies) -> KindReads.ownerHash(mode(), keys, replies));
	}

	@Override
	public long aliveMillis() {
		return ALIVE_MILLIS;
	}

	@Override
	public CompletionStage<List<Object>> keepAlive(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			List<String> owners, PublishMode publish) {
		byte[][] args = new byte[owners.size() + 3][];
		args[0] = ScriptCalls.number(ALIVE_MILLIS);
		args[1] = publish.argument();
		// the channel is an argument, never a key (see ScriptCalls)
		args[2] = keys.channelBytes();
		for (int i = 0; i < owners.size(); i++) {
			args[i + 3] = ScriptCalls.bytes(owners.get(i));
		}
		return ScriptCalls.script(redis, HEARTBEAT, ScriptOutputType.MULTI, queueKeys(keys), args);
	}

	// the hash, the queue and the heartbeats (the channel that names the next waiter is
	// an argument)
	private static byte[][] queueKeys(LockKeys keys) {
		return ScriptCalls.keys(List.of(keys.lockKey(), queueKey(keys.lockKey()), heartbeatsKey(keys.lockKey())));
	}

}
