package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * The semaphore: at most a limit of holders of a name at once. One sorted set per name,
 * {@code <prefix>{<name>}:sem}, whose members are the holders (each the owner of one
 * handle: a permit is never re-entered) and whose scores are their lease ends on Redis'
 * clock; every script first drops the holders whose lease has passed, so a dead holder's
 * permit comes back within its lease, and the key expires with the latest lease end.
 * <p>
 * The limit is not stored: each acquisition brings its own ({@link #permits()}, one kind
 * instance per limit) and is granted while fewer than that many hold the name, so that
 * callers that pass different limits for one name each see their own. A release frees one
 * permit and wakes the waiter asleep longest in each client; a waiter that hears nothing
 * asks again at the earliest lease end. Within a client, callers
 * {@link LockKind.WaitsInLine wait in line}: one that comes while others of the client
 * wait does not ask Redis before its turn, so that a woken waiter finds its permit.
 * <p>
 * A permit under the watchdog that its holder releases while another caller of the client
 * waits in line is {@link LockKind.PassesOneOfMany passed} to that caller instead of
 * given back: its member and lease stay in Redis (so a dead holder's permit still comes
 * back within its lease), and one script gives the new holder its fencing token. After
 * {@code maxLocalPasses} passes the permit goes back to Redis, whose release message
 * wakes the waiters of every client: their waiters leave no mark, so that bound, not a
 * sign of them, is what keeps other clients from waiting for ever. The scripts,
 * {@code semaphore-acquire.lua}, {@code semaphore-pass.lua},
 * {@code semaphore-release.lua}, {@code semaphore-extend.lua},
 * {@code semaphore-renew.lua} and {@code semaphore-read.lua}, document keys, arguments
 * and replies.
 */
final class SemaphoreLock implements LockKind.PassesOneOfMany, LockKind.KeepsForNobody, LockKind.WaitsInLine {

	/** The limits whose kinds are made once. */
	private static final SemaphoreLock[] COMMON = new SemaphoreLock[64];

	static {
		for (int i = 0; i < COMMON.length; i++) {
			COMMON[i] = new SemaphoreLock(i + 1);
		}
	}

	/** Acquire: the fencing token, or minus the time to the earliest lease end. */
	private static final RedisScript<Long> ACQUIRE = LockScripts.load("semaphore-acquire.lua", Long.class);

	/** Pass a permit within the client: the next fencing token, -1 when not held. */
	private static final RedisScript<Long> PASS = LockScripts.load("semaphore-pass.lua", Long.class);

	/** Release: 0 when given back or kept for nobody, -1 when not held. */
	private static final RedisScript<Long> RELEASE = LockScripts.load("semaphore-release.lua", Long.class);

	/** Set the remaining lease: 1 when held, 0 when not. */
	private static final RedisScript<Long> EXTEND = LockScripts.load("semaphore-extend.lua", Long.class);

	/** Renew many holders' leases: positions of the permits no longer held. */
	@SuppressWarnings("rawtypes")
	private static final RedisScript<List> RENEW = LockScripts.load("semaphore-renew.lua", List.class);

	/** Read one holder's lease, or every live holder's. */
	private static final RedisScript<Object> READ = LockScripts.load("semaphore-read.lua", Object.class);

	/** The member of a permit kept for nobody after a {@code holdAtLeast} release. */
	private static final String KEPT_PREFIX = "kept:";

	private static final byte[] EVERY_HOLDER = new byte[0];

	private final int permits;

	private final byte[] permitsArgument;

	private SemaphoreLock(int permits) {
		this.permits = permits;
		this.permitsArgument = ScriptCalls.number(permits);
	}

	/**
	 * The kind whose acquisitions are granted while fewer than {@code permits} hold the
	 * name.
	 * @throws IllegalArgumentException if {@code permits} is below 1
	 */
	static SemaphoreLock of(int permits) {
		if (permits < 1) {
			throw new IllegalArgumentException("permits must be at least 1, was " + permits);
		}
		return (permits <= COMMON.length) ? COMMON[permits - 1] : new SemaphoreLock(permits);
	}

	/** The limit this kind's acquisitions bring. */
	int permits() {
		return this.permits;
	}

	@Override
	public String mode() {
		return "semaphore";
	}

	@Override
	public LockKeys keys(String keyPrefix, String name) {
		return LockKeys.single(this, keyPrefix, name, ":sem");
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
			.<Long>script(redis, ACQUIRE, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), lease.argument(),
					owner.argument(), this.permitsArgument, ScriptCalls.number(tokens))
			.thenApply((reply) -> LockReply.acquired(reply, tokens));
	}

	/**
	 * Passes a permit to another holder of this client ({@code semaphore-pass.lua}): it
	 * keeps its member and lease in Redis and the new holder gets a fresh token. Redis
	 * does not know whether other clients wait (their waiters leave no mark), so it never
	 * gives the permit up here: the engine ends a run after {@code maxLocalPasses} passes
	 * (see {@link LockKind.PassesOneOfMany}).
	 */
	@Override
	public CompletionStage<LockReply> continueRun(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Grant holder, int tokens, Lease lease, long yieldMillis, boolean giveUp, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, PASS, ScriptOutputType.INTEGER, keys.scriptKeyBytes(), holder.owner().argument(),
					ScriptCalls.number(tokens))
			.thenApply((reply) -> LockReply.continued(reply, tokens));
	}

	@Override
	public CompletionStage<LockReply> release(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Release release, long yieldMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, RELEASE, ScriptOutputType.INTEGER, keys.lockKeyBytes(), release.owner().argument(),
					publish.argument(), ScriptCalls.number(release.keep().millis()), keys.channelBytes(),
					ScriptCalls.number(release.keep().untilMicros()))
			.thenApply(LockReply::released);
	}

	@Override
	public CompletionStage<Boolean> extend(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys, Owner owner,
			long leaseMillis, PublishMode publish) {
		return ScriptCalls
			.<Long>script(redis, EXTEND, ScriptOutputType.INTEGER, keys.lockKeyBytes(), owner.argument(),
					ScriptCalls.number(leaseMillis), publish.argument(), keys.channelBytes())
			.thenApply(LockReply::yes);
	}

	@Override
	public CompletionStage<Boolean> forceRelease(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			PublishMode publish) {
		return LockScripts.forceRelease(redis, keys.lockKeyBytes(), publish, keys.channelBytes());
	}

	@Override
	public CompletionStage<Boolean> isLocked(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return holders(redis, keys).thenApply((holders) -> !holders.isEmpty());
	}

	@Override
	public CompletionStage<Long> holderLeaseMillis(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner) {
		return ScriptCalls.<Long>script(redis, READ, ScriptOutputType.INTEGER, keys.lockKeyBytes(), owner.argument())
			.thenApply((left) -> (left != null) ? left : LockReads.NO_KEY);
	}

	/**
	 * The state of the semaphore: every live holder (hold count 1) and, in the details,
	 * {@code taken} (holders and permits kept for nobody) and {@code leases} (what is
	 * left of each one's lease, in ms).
	 */
	@Override
	public CompletionStage<KindState> state(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys) {
		return holders(redis, keys).thenApply((leases) -> {
			Map<String, Integer> holders = new LinkedHashMap<>();
			boolean kept = false;
			long longest = LockReads.NO_KEY;
			for (Map.Entry<String, Long> lease : leases.entrySet()) {
				if (lease.getKey().startsWith(KEPT_PREFIX)) {
					kept = true;
				}
				else {
					holders.put(lease.getKey(), 1);
				}
				longest = Math.max(longest, lease.getValue());
			}
			return new KindState(mode(), keys.lockKey(), holders, null, longest, kept, 0,
					Map.of("taken", leases.size(), "leases", leases));
		});
	}

	/** The live holders, kept permits included, with what is left of their leases. */
	private static CompletionStage<Map<String, Long>> holders(RedisClusterAsyncCommands<byte[], byte[]> redis,
			LockKeys keys) {
		return ScriptCalls
			.<@Nullable List<Object>>script(redis, READ, ScriptOutputType.MULTI, keys.lockKeyBytes(), EVERY_HOLDER)
			.thenApply((reply) -> {
				Map<String, Long> leases = new LinkedHashMap<>();
				if (reply != null) {
					for (int i = 0; i + 1 < reply.size(); i += 2) {
						leases.put(text(reply.get(i)), ((Number) reply.get(i + 1)).longValue());
					}
				}
				return leases;
			});
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

	@Override
	public String toString() {
		return "SemaphoreLock[permits=" + this.permits + "]";
	}

}
