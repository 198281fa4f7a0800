package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/**
 * How a structure that waits for Redis without a thread ({@link ReleaseSubscriptions})
 * bounds that wait in time: {@link RedisCalls}. The seam where the model-checking tests
 * of that structure (the {@code *LincheckTests}) leave the timeouts out: their JDK timer
 * thread is one the model checker cannot schedule.
 */
interface CallDeadlines {

	/**
	 * When a call started now must end: after the command timeout, or after what is left
	 * of the caller's own time, whichever comes first.
	 * @param budgetNanos what is left of the caller's time, or
	 * {@link RedisCalls#NO_LIMIT}
	 */
	long deadline(long budgetNanos);

	/**
	 * The stage's result, or by the {@link #deadline} the failure a call that timed out
	 * throws ({@link io.github.redislock.LockOutcomeUnknownException}); a failure of the
	 * stage is translated as a call's.
	 * @param what what the call does, for messages
	 */
	<T> CompletableFuture<T> within(String what, CompletionStage<T> command, long deadline);

}
