package io.github.redislock.internal;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What Redis holds for one fair lock, whoever holds it.
 *
 * @param name the lock's name
 * @param key its hash's Redis key
 * @param holders hold count by owner; empty when free
 * @param fencingToken the holder's fencing token, or {@code null} when free
 * @param queued waiters in its queue, on any instance
 * @param remainingLeaseMillis what is left of the lease: -2 when free
 * @param keptForNobody whether it stays taken, with no holder, until the minimum of a
 * {@code holdAtLeast} release has passed
 */
public record FairState(String name, String key, Map<String, Integer> holders, @Nullable Long fencingToken, long queued,
		long remainingLeaseMillis, boolean keptForNobody) {

	static FairState of(String name, KindState state) {
		return new FairState(name, state.key(), state.holders(), state.fencingToken(), state.waiting(),
				state.remainingLeaseMillis(), state.keptForNobody());
	}

}
