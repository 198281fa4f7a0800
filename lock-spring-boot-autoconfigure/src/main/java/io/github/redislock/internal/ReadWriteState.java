package io.github.redislock.internal;

import java.util.Map;
import java.util.Objects;

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

	/**
	 * The read/write lock's state from what its kind read.
	 * @param name the lock's name
	 * @param state the state its kind read, with the details it gives
	 * @return the state
	 */
	@SuppressWarnings("unchecked")
	public static ReadWriteState of(String name, KindState state) {
		Map<String, Object> details = state.details();
		return new ReadWriteState(name, state.key(),
				(Map<String, Integer>) Objects.requireNonNull(details.get("readers")), (String) details.get("writer"),
				(Integer) Objects.requireNonNull(details.get("writeHolds")), (Long) details.get("readToken"),
				(Long) details.get("writeToken"), state.waiting(), state.remainingLeaseMillis());
	}

}
