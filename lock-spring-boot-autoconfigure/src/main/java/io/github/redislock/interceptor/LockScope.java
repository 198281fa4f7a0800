package io.github.redislock.interceptor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import org.jspecify.annotations.Nullable;

/**
 * The locked calls running on this thread, innermost first: which lock names each took
 * itself, and whether it holds them until its method returns (a thread-owned lock) or
 * until its asynchronous result completes (a handle). A nested call uses this to tell
 * whether its own flow already holds a name, which a thread-owned re-entry count cannot
 * tell for handles.
 * <p>
 * Only the synchronous part of a method is covered: a continuation that runs later on
 * another thread starts with an empty scope, and waits for the lock like any caller.
 */
final class LockScope {

	private static final ThreadLocal<LockScope> current = new ThreadLocal<>();

	@Nullable private final LockScope enclosing;

	private final LockOperation operation;

	private final List<String> owned;

	private final boolean untilCompletion;

	// stages of nested asynchronous calls that rely on this scope's locks; it releases
	// them only once these completed too
	@Nullable private List<CompletableFuture<?>> joined;

	private LockScope(@Nullable LockScope enclosing, LockOperation operation, List<String> owned,
			boolean untilCompletion) {
		this.enclosing = enclosing;
		this.operation = operation;
		this.owned = owned;
		this.untilCompletion = untilCompletion;
	}

	/**
	 * Enters a scope for a call that took {@code owned} itself; {@link #exit()} it in a
	 * {@code finally} block.
	 */
	static LockScope enter(LockOperation operation, List<String> owned) {
		LockScope scope = new LockScope(current.get(), operation, owned, operation.isAsynchronous());
		current.set(scope);
		return scope;
	}

	void exit() {
		current.set(this.enclosing);
	}

	/** The innermost enclosing call on this thread that took the named lock itself. */
	@Nullable static LockScope owning(String name) {
		for (LockScope scope = current.get(); scope != null; scope = scope.enclosing) {
			if (scope.owned.contains(name)) {
				return scope;
			}
		}
		return null;
	}

	/** Whether this call holds its locks until its asynchronous result completes. */
	boolean holdsUntilCompletion() {
		return this.untilCompletion;
	}

	LockOperation operation() {
		return this.operation;
	}

	/** Keeps this scope's locks until {@code stage} completed too. */
	void join(CompletionStage<?> stage) {
		if (this.joined == null) {
			this.joined = new ArrayList<>(2);
		}
		// not toCompletableFuture(): a CompletionStage need not support it
		CompletableFuture<Void> completed = new CompletableFuture<>();
		stage.whenComplete((value, failure) -> completed.complete(null));
		this.joined.add(completed);
	}

	/** Whether a nested asynchronous call shares this scope's locks. */
	boolean hasJoined() {
		return this.joined != null;
	}

	/** Completes once every joined stage completed, however. */
	CompletableFuture<Void> joinedCompletion() {
		return (this.joined != null) ? CompletableFuture.allOf(this.joined.toArray(CompletableFuture[]::new))
				: CompletableFuture.completedFuture(null);
	}

}
