package io.github.redislock.internal;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * What Redis holds for one lock, whoever holds it.
 *
 * @param name the lock's name
 * @param key its Redis key
 * @param holders hold count by owner ({@code <client id>:<thread id>}); empty when free
 * @param fencingToken the token of the current holder, or {@code null} when free
 * @param remainingLeaseMillis what is left of the lease: -2 when free, -1 without expiry
 * @param keptForNobody whether it stays taken, with no holder, until the minimum of a
 * {@code holdAtLeast} release has passed (then {@code remainingLeaseMillis} is what is
 * left of it)
 */
public record LockState(String name, String key, Map<String, Integer> holders, @Nullable Long fencingToken,
		long remainingLeaseMillis, boolean keptForNobody) {

	static LockState of(String name, KindState state) {
		return new LockState(name, state.key(), state.holders(), state.fencingToken(), state.remainingLeaseMillis(),
				state.keptForNobody());
	}

}
