package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The exclusive, re-entrant lock: one hash per name whose fields are its owner (with its
 * hold count) and the fencing token. Its scripts, {@code lock.lua}, {@code unlock.lua}
 * and {@code extend.lua}, document their keys, arguments and replies.
 */
final class ExclusiveLock implements LockKind.PassesLocally, LockKind.KeepsForNobody, LockKind.MarksWaiters {

	static final ExclusiveLock INSTANCE = new ExclusiveLock();

	/** Acquire or re-enter: the fencing token, or minus the holder's remaining lease. */
	private static final RedisScript<Long> LOCK = LockScripts.load("lock.lua", Long.class);

	/** Go on passing locally: first reserved token, 0 when given up, -1 when not held. */
	private static final RedisScript<Long> PASS = LockScripts.load("pass.lua", Long.class);

	/** Release one hold: holds left, 0 when freed, -1 when not held. */
	private static final RedisScript<Long> UNLOCK = LockScripts.load("unlock.lua", Long.class);

	/** Count a waiter of another client out: 1 when it was counted in, else 0. */
	private static final RedisScript<Long> WITHDRAW = LockScripts.load("withdraw.lua", Long.class);

	/**
	 * Set the remaining lease of a field's owner: 1 when held, 0 when not. Shared with
	 * the write lock, whose writer is a field of the same shape.
	 */
	static final RedisScript<Long> EXTEND = LockScripts.load("extend.lua", Long.class);

	/** Renew many owners' leases: positions of the locks no longer held. */
	@SuppressWarnings("rawtypes")
	static final RedisScript<List> RENEW = LockScripts.load("renew.lua", List.class);

	private static final byte[] YIELDED_BY = ScriptCalls.bytes("yielded-by");

	private ExclusiveLock() {
	}

	@Override
	public String mode() {
		return "exclusive";
	}

	@Override
	public LockKeys keys(String keyPrefix, String name) {
		return LockKeys.single(this, keyPrefix, name, "");
	}

	@Override
	@SuppressWarnings("rawtypes")
	public RedisScript<List> renewal() {
		return RENEW;
	}

	@Override
	public CompletionStage<LockReply> acquire(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits) {
		return ScriptCalls
			.<Long>script(redis, LOCK, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), lease.argument(),
					owner.argument(), ScriptCalls.number(holdsBefore), ScriptCalls.number(tokens), flag(waits))
			.thenApply((reply) -> LockReply.acquired(reply, tokens));
	}

	@Override
	public CompletionStage<LockReply> continueRun(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Grant holder, int tokens, Lease lease, long yieldMillis, boolean giveUp, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, PASS, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), holder.owner().argument(),
					ScriptCalls.number(tokens), publish.argument(), lease.argument(), ScriptCalls.number(yieldMillis),
					flag(giveUp), keys.channelBytes(), ScriptCalls.number(holder.token()))
			.thenApply((reply) -> LockReply.continued(reply, tokens));
	}

	@Override
	public CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Release release, long yieldMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, UNLOCK, ScriptOutputType.INTEGER, keys.lockKeyBytes(), release.owner().argument(),
					publish.argument(), ScriptCalls.number(release.holdsBefore()),
					ScriptCalls.number(release.keep().millis()), ScriptCalls.number(yieldMillis),
					flag(release.othersOnly()), keys.channelBytes(), ScriptCalls.number(release.keep().untilMicros()),
					ScriptCalls.number(release.grant().token()))
			.thenApply(LockReply::released);
	}

	// a waiter of another client than the holder's counts itself in when it finds the
	// lock taken (lock.lua), and out here when it stops waiting without it; the last one
	// out frees a lock kept for the waiters of other clients
	@Override
	public CompletionStage<?> withdraw(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			PublishMode publish) {
		return ScriptCalls.<Long>script(redis, WITHDRAW, ScriptOutputType.INTEGER, keys.lockKeyBytes(),
				owner.argument(), publish.argument(), keys.channelBytes());
	}

	@Override
	public CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, EXTEND, ScriptOutputType.INTEGER, keys.lockKeyBytes(), owner.argument(),
					ScriptCalls.number(leaseMillis))
			.thenApply(LockReply::yes);
	}

	@Override
	public CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			PublishMode publish) {
		return LockScripts.forceRelease(redis, keys.lockKeyBytes(), publish, keys.channelBytes());
	}

	// taken, unless its client gave it up for other clients (see pass.lua)
	@Override
	public CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		byte[] key = ScriptCalls.bytes(keys.lockKey());
		CompletableFuture<Long> exists = redis.exists(key).toCompletableFuture();
		CompletableFuture<Boolean> yielded = redis.hexists(key, YIELDED_BY).toCompletableFuture();
		return exists.thenCombine(yielded, (e, y) -> e != null && e > 0 && !Boolean.TRUE.equals(y));
	}

	@Override
	public CompletionStage<KindState> state(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return KindReads.read(redis, keys, null).thenApply((replies) -> KindReads.ownerHash(mode(), keys, replies));
	}

	private static byte[] flag(boolean value) {
		return ScriptCalls.number(value ? 1 : 0);
	}

}
