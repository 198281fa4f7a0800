package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The read side of a read/write lock (see {@link ReadWriteLocks}): shared with other
 * readers, never with another owner's write; a newcomer waits behind writers already
 * waiting. Its fencing token is the read phase's, shared by the readers of one phase. A
 * read released before its {@code holdAtLeast} keeps writers out (other readers may come
 * in) for what is left of it, as the client counted it, from the release: the phase's
 * token says nothing of when this reader was granted, so no end on Redis' clock is sent.
 */
final class ReadLock implements ReadWriteLocks.Side, LockKind.KeepsForNobody {

	/** Acquire or re-enter: the read phase's token, or minus how long to wait at most. */
	private static final RedisScript<Long> LOCK = LockScripts.load("read-lock.lua", Long.class);

	/** Release one hold: holds left, 0 when no longer read by the owner, -1 when none. */
	private static final RedisScript<Long> UNLOCK = LockScripts.load("read-unlock.lua", Long.class);

	/** Set the reader's remaining lease: 1 when it reads, 0 when not. */
	private static final RedisScript<Long> EXTEND = LockScripts.load("read-extend.lua", Long.class);

	/**
	 * Renew many readers' leases: positions of those that no longer read. A reader's
	 * lease end goes in the sorted set; the hash and the set only ever grow longer.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW = LockScripts.load("read-renew.lua", List.class);

	private static final byte[] READERS = ScriptCalls.bytes("rn");

	ReadLock() {
	}

	@Override
	public String mode() {
		return "read";
	}

	@Override
	public String channel(String lockKey) {
		return ReadWriteLocks.readersChannel(lockKey);
	}

	@Override
	public String id(String lockKey) {
		return lockKey + "#read";
	}

	@Override
	public String field(Owner owner) {
		return "r:" + owner.id();
	}

	@Override
	public void addRenewKeys(LockKeys keys, List<String> into) {
		into.addAll(ReadWriteLocks.holderKeys(keys));
	}

	@Override
	@SuppressWarnings("rawtypes")
	public RedisScript<List> renewal() {
		return RENEW;
	}

	@Override
	public Wakes wakes() {
		return Wakes.ALL;
	}

	// a writer may read too (a downgrade)
	@Override
	public boolean isCoveredBy(LockKind held) {
		return held instanceof WriteLock;
	}

	@Override
	public CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits) {
		return ScriptCalls
			.<Long>script(redis, LOCK, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), lease.argument(),
					owner.argument(), ScriptCalls.number(holdsBefore), ScriptCalls.flag(waits))
			.thenApply(ReadWriteLocks::acquired);
	}

	@Override
	public CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Release release, long yieldMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, UNLOCK, ScriptOutputType.INTEGER, ReadWriteLocks.holderKeyBytes(keys),
					release.owner().argument(), ScriptCalls.number(release.holdsBefore()), publish.argument(),
					ScriptCalls.bytes(ReadWriteLocks.writersChannel(keys.lockKey())),
					ScriptCalls.number(release.keep().millis()))
			.thenApply(LockReply::released);
	}

	@Override
	public CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, EXTEND, ScriptOutputType.INTEGER, ReadWriteLocks.holderKeyBytes(keys),
					owner.argument(), ScriptCalls.number(leaseMillis))
			.thenApply(LockReply::yes);
	}

	@Override
	public CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return redis.hexists(ScriptCalls.bytes(keys.lockKey()), READERS).thenApply(Boolean.TRUE::equals);
	}

}
