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
	 * The kind a method with that mode and permits takes each name as: the registry's
	 * answer, so that a mode or limit a kind does not take is refused in its words (see
	 * {@link AnnotationLockOperationSource}).
	 * @throws IllegalArgumentException if no kind takes that mode with that many permits
	 */
	static LockSpec spec(LockMode mode, int permits) {
		return LockSpec.of(LockType.forMode(mode.name(), permits), permits);
	}

	/** The registry's one-holder kind of a mode. */
	static LockType type(LockMode mode) {
		return LockType.forMode(mode.name(), 1);
	}

}
