package io.github.redislock.internal;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What Redis holds for one read/write lock, whoever holds it.
 *
 * @param name the lock's name
 * @param key its hash's Redis key
 * @param readers read hold count by owner; empty when nobody reads
 * @param writer the owner that writes, or {@code null}
 * @param writeHolds the writer's hold count, 0 without a writer
 * @param readToken the read phase's fencing token, or {@code null} when nobody reads
 * @param writeToken the writer's fencing token, or {@code null} without a writer
 * @param waitingWriters writers marked as waiting (a mark ends 3 s after the writer's
 * last attempt, or when it stops waiting)
 * @param remainingLeaseMillis what is left of the longest lease: -2 when free
 */
public record ReadWriteState(String name, String key, Map<String, Integer> readers, @Nullable String writer,
		int writeHolds, @Nullable Long readToken, @Nullable Long writeToken, long waitingWriters,
		long remainingLeaseMillis) {
}
