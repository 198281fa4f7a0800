package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

/**
 * The plain reads a kind's {@link LockKind#state} is made of: its hash, the hash's PTTL
 * and, for a kind whose waiters leave a mark, how many there are, pipelined.
 */
final class KindReads {

	/** Fields of an owner hash that name no holder (see lock.lua and pass.lua). */
	private static final Set<String> LOCK_FIELDS = Set.of("token", "client", "contended", "yielded-by");

	/**
	 * What the field of a waiter of another client than the holder's starts with (see
	 * lock.lua): a waiter Redis knows of, not a holder.
	 */
	private static final String WAITER_FIELD_PREFIX = "w:";

	/**
	 * The field of a lock kept for nobody after a {@code holdAtLeast} release (see
	 * unlock.lua and fair-unlock.lua).
	 */
	static final String KEPT_FIELD = "hold-at-least";

	private KindReads() {
	}

	/**
	 * Reads the lock's hash and PTTL and, given {@code waiters}, the size of that sorted
	 * set.
	 */
	static CompletionStage<Replies> read(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			@Nullable String waiters) {
		byte[] key = ScriptCalls.bytes(keys.lockKey());
		CompletableFuture<Map<byte[], byte[]>> hash = redis.hgetall(key).toCompletableFuture();
		CompletableFuture<Long> ttl = redis.pttl(key).toCompletableFuture();
		CompletableFuture<Long> count = (waiters != null)
				? redis.zcard(ScriptCalls.bytes(waiters)).toCompletableFuture() : CompletableFuture.completedFuture(0L);
		return CompletableFuture.allOf(hash, ttl, count)
			.thenApply((done) -> new Replies(fields(hash.join()), number(ttl.join(), LockReads.NO_KEY),
					number(count.join(), 0)));
	}

	/**
	 * The state of a lock whose hash holds owners and their hold counts (exclusive and
	 * fair locks).
	 */
	static KindState ownerHash(String mode, LockKeys keys, Replies replies) {
		Map<String, Integer> holders = new TreeMap<>();
		long marked = 0;
		for (Map.Entry<String, String> field : replies.fields().entrySet()) {
			if (field.getKey().startsWith(WAITER_FIELD_PREFIX)) {
				marked++;
			}
			else if (!LOCK_FIELDS.contains(field.getKey()) && !KEPT_FIELD.equals(field.getKey())) {
				holders.put(field.getKey(), Integer.valueOf(field.getValue()));
			}
		}
		return new KindState(mode, keys.lockKey(), holders, longOrNull(replies.fields().get("token")), replies.ttl(),
				replies.fields().containsKey(KEPT_FIELD), replies.count() + marked, Map.of());
	}

	static @Nullable Long longOrNull(@Nullable String value) {
		return (value != null) ? Long.valueOf(value) : null;
	}

	private static Map<String, String> fields(@Nullable Map<byte[], byte[]> hash) {
		Map<String, String> fields = new TreeMap<>();
		if (hash != null) {
			hash.forEach((field, value) -> fields.put(text(field), text(value)));
		}
		return fields;
	}

	private static long number(@Nullable Long reply, long otherwise) {
		return (reply != null) ? reply : otherwise;
	}

	private static String text(byte[] value) {
		return new String(value, StandardCharsets.UTF_8);
	}

	/**
	 * @param fields the hash, by field
	 * @param ttl its PTTL
	 * @param count the size of the waiters' sorted set, 0 when not asked
	 */
	record Replies(Map<String, String> fields, long ttl, long count) {
	}

}
