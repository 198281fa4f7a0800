package io.github.redislock.interceptor;

import io.github.redislock.annotation.LockMode;
import io.github.redislock.internal.LockSpec;
import io.github.redislock.internal.LockType;

/**
 * Which kind an annotation asks for: the one place that maps {@link LockMode} and
 * {@code permits} to the registry, so that neither the annotation nor the kinds know of
 * each other, and nothing after it names a kind.
 */
final class LockModes {

	private LockModes() {
	}

	/**
	 * The kind a method with that mode and permits takes each name as: above one permit,
	 * a permit of the name's semaphore (only the default mode counts its holders, see
	 * {@link AnnotationLockOperationSource}).
	 */
	static LockSpec spec(LockMode mode, int permits) {
		return (permits > 1) ? LockSpec.of(LockType.SEMAPHORE, permits) : LockSpec.of(type(mode));
	}

	/** The registry's kind of a mode. */
	static LockType type(LockMode mode) {
		return LockType.valueOf(mode.name());
	}

}
