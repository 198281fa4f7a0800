package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The write side of a read/write lock (see {@link ReadWriteLocks}): one owner, and no
 * reader other than that owner itself (a downgrade). A writer that waits keeps new
 * readers out by a mark it renews each time it asks again, so readers cannot starve it; a
 * writer that stops waiting withdraws its mark, and one whose JVM died stops keeping
 * readers out when its mark ends. The readers kept out while a writer wrote get a short
 * turn after it, ahead of the writers waiting, so writers cannot starve readers. A write
 * released before its {@code holdAtLeast} keeps the lock for nobody until then: no other
 * owner reads or writes (an owner that downgraded reads on), and the readers kept out
 * while it wrote get their turn when the minimum ends.
 */
final class WriteLock implements ReadWriteLocks.Side, LockKind.MarksWaiters, LockKind.KeepsForNobody {

	/**
	 * How long a waiting writer's mark keeps new readers out without being renewed: the
	 * longest readers wait for a writer that stopped waiting.
	 */
	static final long WAITING_MARK_MILLIS = TimeUnit.SECONDS.toMillis(3);

	/** How often a waiting writer asks again at least, renewing its mark. */
	static final long WAITING_RECHECK_MILLIS = WAITING_MARK_MILLIS / 3;

	/**
	 * How long the readers kept out while a writer wrote may come in after it, ahead of
	 * the writers waiting: the time their clients need to hear of the release and ask. So
	 * a stream of writers cannot starve readers either.
	 */
	static final long READ_TURN_MILLIS = 20;

	/** Acquire or re-enter: the fencing token, or minus how long to wait at most. */
	private static final RedisScript<Long> LOCK = LockScripts.load("write-lock.lua", Long.class);

	/** Release one hold: holds left, 0 when no longer written, -1 when not held. */
	private static final RedisScript<Long> UNLOCK = LockScripts.load("write-unlock.lua", Long.class);

	/** Set the remaining lease of a field's owner: the exclusive lock's script. */
	private static final RedisScript<Long> EXTEND = ExclusiveLock.EXTEND;

	/** Withdraw a waiting writer's mark: 1 when it was there. */
	private static final RedisScript<Long> WITHDRAW = LockScripts.load("write-withdraw.lua", Long.class);

	/**
	 * Renew many writers' leases: positions of those that no longer write. The hash is
	 * shared with readers: its expiry only ever grows longer.
	 */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW = LockScripts.load("write-renew.lua", List.class);

	private static final byte[] WRITER = ScriptCalls.bytes("writer");

	WriteLock() {
	}

	@Override
	public String mode() {
		return "write";
	}

	@Override
	public String channel(String lockKey) {
		return ReadWriteLocks.writersChannel(lockKey);
	}

	@Override
	public String id(String lockKey) {
		return lockKey + "#write";
	}

	@Override
	public String field(Owner owner) {
		return "w:" + owner.id();
	}

	@Override
	@SuppressWarnings("rawtypes")
	public RedisScript<List> renewal() {
		return RENEW;
	}

	// a reader that asks to write waits for its own read: an upgrade is refused
	@Override
	public boolean waitsForItselfHolding(LockKind held) {
		return held instanceof ReadLock;
	}

	@Override
	public CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits) {
		return ScriptCalls
			.<Long>script(redis, LOCK, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), lease.argument(),
					owner.argument(), ScriptCalls.number(holdsBefore), ScriptCalls.flag(waits),
					ScriptCalls.number(WAITING_MARK_MILLIS), ScriptCalls.number(WAITING_RECHECK_MILLIS))
			.thenApply(ReadWriteLocks::acquired);
	}

	@Override
	public CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Release release, long yieldMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, UNLOCK, ScriptOutputType.INTEGER, ReadWriteLocks.holderKeyBytes(keys),
					release.owner().argument(), ScriptCalls.number(release.holdsBefore()), publish.argument(),
					ScriptCalls.number(READ_TURN_MILLIS), ReadWriteLocks.readersChannelBytes(keys),
					ReadWriteLocks.writersChannelBytes(keys), ScriptCalls.number(release.keep().millis()),
					ScriptCalls.number(release.keep().untilMicros()))
			.thenApply(LockReply::released);
	}

	@Override
	public CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, EXTEND, ScriptOutputType.INTEGER, keys.lockKeyBytes(), ScriptCalls.bytes(field(owner)),
					ScriptCalls.number(leaseMillis))
			.thenApply(LockReply::yes);
	}

	@Override
	public CompletionStage<?> withdraw(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			PublishMode publish) {
		return ScriptCalls.script(redis, WITHDRAW, ScriptOutputType.INTEGER,
				ScriptCalls.keys(List.of(ReadWriteLocks.writersKey(keys.lockKey()))), owner.argument(),
				publish.argument(), ReadWriteLocks.readersChannelBytes(keys));
	}

	@Override
	public CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return redis.hexists(ScriptCalls.bytes(keys.lockKey()), WRITER).thenApply(Boolean.TRUE::equals);
	}

}
