package io.github.redislock.autoconfigure;

import io.github.redislock.annotation.InvalidLockAnnotationException;

import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;

/**
 * Turns a {@code @DistributedLock} mistake found at start-up into Spring Boot's
 * "APPLICATION FAILED TO START" report: what is wrong, on which method, and how to fix
 * it, instead of a message buried in a long bean-creation stack trace.
 */
class InvalidLockAnnotationFailureAnalyzer extends AbstractFailureAnalyzer<InvalidLockAnnotationException> {

	@Override
	protected FailureAnalysis analyze(Throwable rootFailure, InvalidLockAnnotationException cause) {
		return new FailureAnalysis(cause.getDescription() + ".", cause.getAction() + ".", cause);
	}

}
