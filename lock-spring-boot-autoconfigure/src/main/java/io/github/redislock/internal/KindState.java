package io.github.redislock.internal;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What Redis holds for one kind's lock of a name, whoever holds it, read by that kind
 * ({@link LockKind#state}): the one view the {@code locks} endpoint shows of every kind.
 * Not API.
 *
 * @param mode the kind, as the endpoint names it: {@code exclusive}, {@code readWrite}
 * (both sides of a read/write lock share one hash) or {@code fair}
 * @param key its hash's Redis key
 * @param holders hold count by owner; empty when free
 * @param fencingToken the current holders' fencing token, or {@code null} when free
 * @param remainingLeaseMillis what is left of the (longest) lease: -2 when free, -1
 * without expiry
 * @param keptForNobody whether it stays taken, with no holder, until the minimum of a
 * {@code holdAtLeast} release has passed
 * @param waiting waiters Redis knows of, on any instance (a fair lock's queue, the
 * writers waiting); 0 for a kind whose waiters leave no mark
 * @param details what only this kind has, by name (a read/write lock's readers and
 * writer); values are strings, numbers or maps of them
 */
public record KindState(String mode, String key, Map<String, Integer> holders, @Nullable Long fencingToken,
		long remainingLeaseMillis, boolean keptForNobody, long waiting, Map<String, Object> details) {

	/** Whether the lock is taken: held, or kept for nobody. */
	public boolean locked() {
		return !this.holders.isEmpty() || this.keptForNobody;
	}

	/** Whether there is anything to show: it is taken, or waited for. */
	public boolean active() {
		return locked() || this.waiting > 0;
	}

}
