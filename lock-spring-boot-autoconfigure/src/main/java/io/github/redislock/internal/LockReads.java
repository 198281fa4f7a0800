package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;

import org.springframework.data.redis.core.script.RedisScript;

/**
 * What the engine, the lock API and the inspection ask Redis about locks, without
 * changing anything: plain commands (a script only where the server's clock must be read
 * with a key, on the key's node), pipelined where one answer needs several, each bounded
 * like every other call by {@link RedisCalls}.
 */
final class LockReads {

	/**
	 * A PTTL reply for a key that does not exist, and what a read answers for a lease
	 * nobody holds: prelude.lua's {@code NO_KEY}, where the scripts read it (the one
	 * definition in Java: the kinds and {@link LockInspector} read this one).
	 */
	static final long NO_KEY = -2;

	/** A PTTL reply for a key without expiry. */
	static final long NO_EXPIRY = -1;

	private static final RedisScript<Object> FENCE_READ = LockScripts.load("fence-read.lua", Object.class);

	private final RedisCalls calls;

	LockReads(RedisCalls calls) {
		this.calls = calls;
	}

	/**
	 * Whether the lock is taken: held, or kept for nobody after a {@code holdAtLeast};
	 * not when its client gave it up for other clients (see {@code pass.lua}). One round
	 * trip.
	 */
	boolean exists(LockKeys keys) {
		return Boolean.TRUE.equals(this.calls.call(() -> RedisLockCommands.describe("read", keys),
				(redis) -> keys.kind().isLocked(redis, keys)));
	}

	/** What Redis holds for the lock, read by its kind in one round trip. */
	KindState state(LockKeys keys) {
		return this.calls.call(() -> RedisLockCommands.describe("read", keys),
				(redis) -> keys.kind().state(redis, keys));
	}

	/**
	 * What Redis holds for each of the locks, read by their kinds, pipelined: one round
	 * trip however many.
	 */
	List<KindState> states(List<LockKeys> locks) {
		return this.calls.call(() -> "read " + locks.size() + " lock(s)", (redis) -> {
			List<CompletableFuture<KindState>> states = locks.stream()
				.map((keys) -> keys.kind().state(redis, keys).toCompletableFuture())
				.toList();
			return CompletableFuture.allOf(states.toArray(CompletableFuture[]::new))
				.thenApply((done) -> states.stream().map(CompletableFuture::join).toList());
		});
	}

	/**
	 * The fencing counter and the clock of the node that holds it, read by one script so
	 * that both come from that node at one instant (a plain {@code TIME} on a cluster
	 * goes to any node). One round trip.
	 */
	FencingCounter fencingCounter(String fenceKey) {
		List<Object> reply = this.calls.call(() -> "read the fencing counter '" + fenceKey + "'", (redis) -> ScriptCalls
			.<List<Object>>script(redis, FENCE_READ, ScriptOutputType.MULTI, ScriptCalls.keys(List.of(fenceKey))));
		Object value = reply.get(0);
		return new FencingCounter(fenceKey, (value != null) ? Long.valueOf(text(value)) : null,
				((Number) reply.get(1)).longValue());
	}

	/** This owner's hold count as Redis has it. */
	int holdCount(LockKeys keys, Owner owner) {
		byte[] count = this.calls.call(() -> RedisLockCommands.describe("read", keys),
				(redis) -> redis.hget(ScriptCalls.bytes(keys.lockKey()), ScriptCalls.bytes(keys.field(owner))));
		return (count != null) ? Integer.parseInt(text(count)) : 0;
	}

	/**
	 * What is left of the owner's lease, in one round trip: {@link #NO_KEY} when the
	 * owner does not hold the lock.
	 */
	long remainingLeaseMillis(LockKeys keys, Owner owner) {
		Long left = this.calls.call(() -> RedisLockCommands.describe("read", keys),
				(redis) -> keys.kind().holderLeaseMillis(redis, keys, owner));
		return (left != null) ? left : NO_KEY;
	}

	long remainingLeaseMillis(LockKeys keys) {
		Long ttl = this.calls.call(() -> RedisLockCommands.describe("read", keys),
				(redis) -> redis.pttl(ScriptCalls.bytes(keys.lockKey())));
		return (ttl != null) ? ttl : NO_KEY;
	}

	/** PTTL of each key, pipelined: one round trip however many keys. */
	List<Long> remainingLeaseMillis(List<String> lockKeys) {
		if (lockKeys.isEmpty()) {
			return List.of();
		}
		return this.calls.call(() -> "read the leases of " + lockKeys.size() + " lock(s)", (redis) -> {
			List<CompletableFuture<Long>> ttls = lockKeys.stream()
				.map((key) -> redis.pttl(ScriptCalls.bytes(key)).toCompletableFuture())
				.toList();
			return CompletableFuture.allOf(ttls.toArray(CompletableFuture[]::new))
				.thenApply((done) -> ttls.stream().map((ttl) -> (ttl.join() != null) ? ttl.join() : NO_KEY).toList());
		});
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

}
