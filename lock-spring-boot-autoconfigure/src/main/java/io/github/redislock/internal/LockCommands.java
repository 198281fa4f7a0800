package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.lang.Nullable;

import io.github.redislock.RedisLockException;

/**
 * The round trips to Redis, each one script or command, run through {@link RedisCalls}:
 * bounded by the lock command timeout, safe against interrupts, failures turned into
 * {@link RedisLockException} naming the lock. A call whose answer did not come throws
 * {@link RedisCalls.OutcomeUnknownException}.
 */
final class LockCommands {

	private final RedisCalls calls;

	@Nullable
	private final ReplicaAcknowledgement acknowledgement;

	LockCommands(RedisCalls calls, @Nullable ReplicaAcknowledgement acknowledgement) {
		this.calls = calls;
		this.acknowledgement = acknowledgement;
	}

	long timeoutMillis() {
		return this.calls.timeoutMillis();
	}

	/**
	 * Runs the acquire script.
	 * @param holdsBefore this owner's hold count before the call
	 * @param budgetNanos what is left of the caller's time (wait plus command timeout),
	 * or {@link RedisCalls#NO_LIMIT}
	 * @return the fencing token (> 0), or minus the holder's remaining lease, or 0 when
	 * that is unknown
	 */
	long acquire(LockKeys keys, String owner, long leaseMillis, int holdsBefore, long budgetNanos) {
		// a re-entry changes no ownership, so a failover cannot turn it into a double
		// grant: it needs no acknowledgement
		ReplicaAcknowledgement acknowledgement = (holdsBefore == 0) ? this.acknowledgement : null;
		long extra = (acknowledgement != null) ? acknowledgement.timeoutMillis() : 0;
		Long token = this.calls.call(describe("acquire", keys), extra, budgetNanos, (redis) -> {
			CompletionStage<Long> locked = lockScript(redis, keys, owner, leaseMillis, holdsBefore);
			return (acknowledgement != null)
					? locked.thenCompose((reply) -> acknowledged(redis, keys, owner, reply, acknowledgement)) : locked;
		});
		return (token != null) ? token : 0;
	}

	// The WAIT goes on the connection that ran the script: it counts that connection's
	// writes. An acquisition that is not acknowledged, or whose WAIT fails, is released
	// again, so that nothing is left held that no hold of this client knows of.
	private CompletionStage<Long> acknowledged(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			String owner, @Nullable Long token, ReplicaAcknowledgement acknowledgement) {
		if (token == null || token <= 0) {
			return CompletableFuture.completedFuture(token);
		}
		return acknowledgement.waitFor(redis, keys).handle((acknowledged, failure) -> {
			if (failure == null && acknowledgement.isEnough(acknowledged)) {
				return CompletableFuture.completedFuture(token);
			}
			RedisCalls.Refused refusal = (failure == null) ? acknowledgement.refusal(acknowledged)
					: new RedisCalls.Refused("waiting for replicas failed: " + failure.getMessage(), failure);
			return unlockScript(redis, keys, owner, 1)
				.<Long>thenCompose((released) -> CompletableFuture.failedFuture(refusal));
		}).thenCompose((next) -> next);
	}

	/**
	 * Runs the release script.
	 * @param holdsBefore this owner's hold count before the call
	 * @return holds left, 0 when the lock became free, -1 when this owner held nothing
	 */
	long release(LockKeys keys, String owner, int holdsBefore) {
		Long left = this.calls.call(describe("release", keys),
				(redis) -> unlockScript(redis, keys, owner, holdsBefore));
		return (left != null) ? left : -1;
	}

	boolean forceRelease(LockKeys keys) {
		Long freed = this.calls.call(describe("force-unlock", keys), (redis) -> RedisCalls.script(redis,
				LockScripts.FORCE_UNLOCK, ScriptOutputType.INTEGER, keys.lockOnly(), keys.channel()));
		return freed != null && freed == 1L;
	}

	/**
	 * Renews the given watchdog holds (all in one slot); returns those no longer held.
	 */
	List<Hold> renew(List<Hold> holds, long leaseMillis) {
		List<String> keys = new ArrayList<>(holds.size());
		String[] args = new String[holds.size() + 1];
		args[0] = Long.toString(leaseMillis);
		for (int i = 0; i < holds.size(); i++) {
			keys.add(holds.get(i).keys().lockKey());
			args[i + 1] = holds.get(i).owner();
		}
		List<Object> lostPositions = this.calls.call("renew " + holds.size() + " lock lease(s)", (redis) -> RedisCalls
			.<List<Object>>script(redis, LockScripts.RENEW, ScriptOutputType.MULTI, keys, args));
		List<Hold> lost = new ArrayList<>();
		if (lostPositions != null) {
			for (Object position : lostPositions) {
				lost.add(holds.get(((Number) position).intValue() - 1));
			}
		}
		return lost;
	}

	boolean exists(LockKeys keys) {
		Long exists = this.calls.call(describe("read", keys),
				(redis) -> redis.exists(RedisCalls.bytes(keys.lockKey())));
		return exists != null && exists > 0;
	}

	/** The lock's hash and its PTTL, pipelined in one round trip. */
	LockState state(LockKeys keys) {
		Object[] replies = this.calls.call(describe("read", keys), (redis) -> {
			byte[] key = RedisCalls.bytes(keys.lockKey());
			CompletableFuture<Map<byte[], byte[]>> hash = redis.hgetall(key).toCompletableFuture();
			CompletableFuture<Long> ttl = redis.pttl(key).toCompletableFuture();
			return hash.thenCombine(ttl, (h, t) -> new Object[] { h, t });
		});
		Map<String, Integer> holders = new TreeMap<>();
		Long token = null;
		if (replies[0] instanceof Map<?, ?> hash) {
			for (Map.Entry<?, ?> field : hash.entrySet()) {
				String name = text(field.getKey());
				if ("token".equals(name)) {
					token = Long.valueOf(text(field.getValue()));
				}
				else {
					holders.put(name, Integer.valueOf(text(field.getValue())));
				}
			}
		}
		long ttl = (replies[1] instanceof Number number) ? number.longValue() : -2;
		return new LockState(keys.name(), keys.lockKey(), holders, token, ttl);
	}

	/** This owner's hold count as Redis has it. */
	int holdCount(LockKeys keys, String owner) {
		byte[] count = this.calls.call(describe("read", keys),
				(redis) -> redis.hget(RedisCalls.bytes(keys.lockKey()), RedisCalls.bytes(owner)));
		return (count != null) ? Integer.parseInt(text(count)) : 0;
	}

	long remainingLeaseMillis(LockKeys keys) {
		Long ttl = this.calls.call(describe("read", keys), (redis) -> redis.pttl(RedisCalls.bytes(keys.lockKey())));
		return (ttl != null) ? ttl : -2;
	}

	/** PTTL of each key, pipelined: one round trip however many keys. */
	List<Long> remainingLeaseMillis(List<String> lockKeys) {
		if (lockKeys.isEmpty()) {
			return List.of();
		}
		return this.calls.call("read the leases of " + lockKeys.size() + " lock(s)", (redis) -> {
			List<CompletableFuture<Long>> ttls = lockKeys.stream()
				.map((key) -> redis.pttl(RedisCalls.bytes(key)).toCompletableFuture())
				.toList();
			return CompletableFuture.allOf(ttls.toArray(CompletableFuture[]::new))
				.thenApply((done) -> ttls.stream().map((ttl) -> (ttl.join() != null) ? ttl.join() : -2L).toList());
		});
	}

	private static CompletionStage<Long> lockScript(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			String owner, long leaseMillis, int holdsBefore) {
		return RedisCalls.script(redis, LockScripts.LOCK, ScriptOutputType.INTEGER, keys.lockAndFence(),
				Long.toString(leaseMillis), owner, Integer.toString(holdsBefore));
	}

	private static CompletionStage<Long> unlockScript(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			String owner, int holdsBefore) {
		return RedisCalls.script(redis, LockScripts.UNLOCK, ScriptOutputType.INTEGER, keys.lockOnly(), owner,
				keys.channel(), Integer.toString(holdsBefore));
	}

	private static String describe(String operation, LockKeys keys) {
		return operation + " lock '" + keys.name() + "' (key '" + keys.lockKey() + "')";
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

}
