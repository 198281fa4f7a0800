package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

/**
 * Holds a lock for the life of an asynchronous action: from when the action is started
 * until the stage it returned completes, however it completes; then releases it without
 * blocking, and completes as the action did.
 */
final class AsyncHolds {

	private AsyncHolds() {
	}

	static <T extends @Nullable Object> CompletableFuture<T> holdUntilComplete(DefaultLockHandle handle,
			Supplier<? extends CompletionStage<T>> action) {
		CompletionStage<T> stage;
		try {
			stage = action.get();
			if (stage == null) {
				throw new IllegalStateException(
						"The action run under lock '" + handle.name() + "' returned null instead of a CompletionStage");
			}
		}
		catch (RuntimeException | Error ex) {
			return handle.releaseAsync().handle((released, releaseFailure) -> {
				addSuppressed(ex, releaseFailure);
				throw ex;
			});
		}
		return stage.handle((value, failure) -> handle.releaseAsync().handle((released, releaseFailure) -> {
			if (failure != null) {
				addSuppressed(failure, releaseFailure);
				throw (failure instanceof CompletionException completion) ? completion
						: new CompletionException(failure);
			}
			if (releaseFailure != null) {
				throw (releaseFailure instanceof CompletionException completion) ? completion
						: new CompletionException(releaseFailure);
			}
			return value;
		})).thenCompose((next) -> next).toCompletableFuture();
	}

	private static void addSuppressed(Throwable failure, @Nullable Throwable releaseFailure) {
		if (releaseFailure != null) {
			Throwable cause = RedisFailures.unwrap(releaseFailure);
			if (cause != failure) {
				failure.addSuppressed(cause);
			}
		}
	}

}
