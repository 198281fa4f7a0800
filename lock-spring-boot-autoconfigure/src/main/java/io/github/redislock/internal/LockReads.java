package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

/**
 * What the engine, the lock API and the inspection ask Redis about locks, without
 * changing anything: plain commands (no scripts), pipelined where one answer needs
 * several, each bounded like every other call by {@link RedisCalls}.
 */
final class LockReads {

	/** A PTTL reply for a key that does not exist. */
	static final long NO_KEY = -2;

	/** A PTTL reply for a key without expiry. */
	static final long NO_EXPIRY = -1;

	/** Fields of a lock's hash that name no holder (see lock.lua and pass.lua). */
	private static final java.util.Set<String> LOCK_FIELDS = java.util.Set.of("client", "contended", "yielded-by");

	/**
	 * The field of a lock kept for nobody after a {@code holdAtLeast} release (see
	 * unlock.lua and fair-unlock.lua).
	 */
	private static final String KEPT_FIELD = "hold-at-least";

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
		return Boolean.TRUE.equals(this.calls.call(() -> LockCommands.describe("read", keys),
				(redis) -> keys.kind().isLocked(redis, keys)));
	}

	/** The lock's hash and its PTTL, pipelined in one round trip. */
	LockState state(LockKeys keys) {
		Object[] replies = this.calls.call(() -> LockCommands.describe("read", keys), (redis) -> {
			byte[] key = RedisCalls.bytes(keys.lockKey());
			CompletableFuture<Map<byte[], byte[]>> hash = redis.hgetall(key).toCompletableFuture();
			CompletableFuture<Long> ttl = redis.pttl(key).toCompletableFuture();
			return hash.thenCombine(ttl, (h, t) -> new Object[] { h, t });
		});
		Map<String, Integer> holders = new TreeMap<>();
		Long token = null;
		boolean kept = false;
		if (replies[0] instanceof Map<?, ?> hash) {
			for (Map.Entry<?, ?> field : hash.entrySet()) {
				String name = text(field.getKey());
				if ("token".equals(name)) {
					token = Long.valueOf(text(field.getValue()));
				}
				else if (KEPT_FIELD.equals(name)) {
					kept = true;
				}
				else if (!LOCK_FIELDS.contains(name)) {
					holders.put(name, Integer.valueOf(text(field.getValue())));
				}
			}
		}
		long ttl = (replies[1] instanceof Number number) ? number.longValue() : NO_KEY;
		return new LockState(keys.name(), keys.lockKey(), holders, token, ttl, kept);
	}

	/**
	 * The read/write lock's hash, its PTTL and the writers waiting, in one round trip.
	 */
	ReadWriteState readWriteState(String keyPrefix, String name) {
		LockKeys keys = LockType.WRITE.keys(keyPrefix, name);
		Object[] replies = hashTtlAndCount(keys, ReadWriteLocks.writersKey(keys.lockKey()));
		Map<String, Integer> readers = new TreeMap<>();
		Map<String, String> fields = fields(replies[0]);
		fields.forEach((field, value) -> {
			if (field.startsWith("r:")) {
				readers.put(field.substring(2), Integer.valueOf(value));
			}
		});
		String writer = fields.get("writer");
		String writeHolds = (writer != null) ? fields.get("w:" + writer) : null;
		return new ReadWriteState(name, keys.lockKey(), readers, writer,
				(writeHolds != null) ? Integer.parseInt(writeHolds) : 0, longOrNull(fields.get("rt")),
				longOrNull(fields.get("wt")), number(replies[2], 0), number(replies[1], NO_KEY));
	}

	/** The fair lock's hash, its PTTL and its queue's length, in one round trip. */
	FairState fairState(String keyPrefix, String name) {
		LockKeys keys = LockType.FAIR.keys(keyPrefix, name);
		Object[] replies = hashTtlAndCount(keys, FairLock.queueKey(keys.lockKey()));
		Map<String, Integer> holders = new TreeMap<>();
		Map<String, String> fields = fields(replies[0]);
		fields.forEach((field, value) -> {
			if (!"token".equals(field) && !KEPT_FIELD.equals(field)) {
				holders.put(field, Integer.valueOf(value));
			}
		});
		return new FairState(name, keys.lockKey(), holders, longOrNull(fields.get("token")), number(replies[2], 0),
				number(replies[1], NO_KEY), fields.containsKey(KEPT_FIELD));
	}

	private Object[] hashTtlAndCount(LockKeys keys, String sortedSet) {
		return this.calls.call(() -> LockCommands.describe("read", keys), (redis) -> {
			byte[] key = RedisCalls.bytes(keys.lockKey());
			CompletableFuture<Map<byte[], byte[]>> hash = redis.hgetall(key).toCompletableFuture();
			CompletableFuture<Long> ttl = redis.pttl(key).toCompletableFuture();
			CompletableFuture<Long> count = redis.zcard(RedisCalls.bytes(sortedSet)).toCompletableFuture();
			return CompletableFuture.allOf(hash, ttl, count)
				.thenApply((done) -> new Object[] { hash.join(), ttl.join(), count.join() });
		});
	}

	private static Map<String, String> fields(Object hash) {
		Map<String, String> fields = new TreeMap<>();
		if (hash instanceof Map<?, ?> map) {
			map.forEach((field, value) -> fields.put(text(field), text(value)));
		}
		return fields;
	}

	private static @Nullable Long longOrNull(@Nullable String value) {
		return (value != null) ? Long.valueOf(value) : null;
	}

	private static long number(Object reply, long otherwise) {
		return (reply instanceof Number number) ? number.longValue() : otherwise;
	}

	/** This owner's hold count as Redis has it. */
	int holdCount(LockKeys keys, Owner owner) {
		byte[] count = this.calls.call(() -> LockCommands.describe("read", keys),
				(redis) -> redis.hget(RedisCalls.bytes(keys.lockKey()), RedisCalls.bytes(keys.field(owner))));
		return (count != null) ? Integer.parseInt(text(count)) : 0;
	}

	/**
	 * What is left of the owner's lease, in one round trip: {@link #NO_KEY} when the
	 * owner does not hold the lock.
	 */
	long remainingLeaseMillis(LockKeys keys, Owner owner) {
		Object[] replies = this.calls.call(() -> LockCommands.describe("read", keys), (redis) -> {
			byte[] key = RedisCalls.bytes(keys.lockKey());
			CompletableFuture<Boolean> held = redis.hexists(key, RedisCalls.bytes(keys.field(owner)))
				.toCompletableFuture();
			CompletableFuture<Long> ttl = redis.pttl(key).toCompletableFuture();
			return held.thenCombine(ttl, (h, t) -> new Object[] { h, t });
		});
		boolean held = Boolean.TRUE.equals(replies[0]);
		return (held && replies[1] instanceof Number ttl) ? ttl.longValue() : NO_KEY;
	}

	long remainingLeaseMillis(LockKeys keys) {
		Long ttl = this.calls.call(() -> LockCommands.describe("read", keys),
				(redis) -> redis.pttl(RedisCalls.bytes(keys.lockKey())));
		return (ttl != null) ? ttl : NO_KEY;
	}

	/** PTTL of each key, pipelined: one round trip however many keys. */
	List<Long> remainingLeaseMillis(List<String> lockKeys) {
		if (lockKeys.isEmpty()) {
			return List.of();
		}
		return this.calls.call(() -> "read the leases of " + lockKeys.size() + " lock(s)", (redis) -> {
			List<CompletableFuture<Long>> ttls = lockKeys.stream()
				.map((key) -> redis.pttl(RedisCalls.bytes(key)).toCompletableFuture())
				.toList();
			return CompletableFuture.allOf(ttls.toArray(CompletableFuture[]::new))
				.thenApply((done) -> ttls.stream().map((ttl) -> (ttl.join() != null) ? ttl.join() : NO_KEY).toList());
		});
	}

	private static String text(Object value) {
		return (value instanceof byte[] bytes) ? new String(bytes, StandardCharsets.UTF_8) : String.valueOf(value);
	}

}
