package io.github.redislock.internal;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import org.springframework.data.redis.connection.RedisConnectionFactory;

import io.github.redislock.LockOutcomeUnknownException;

import static io.github.redislock.internal.LincheckRuns.call;

/**
 * Every interleaving of a call waiting for its reply ({@link RedisCalls#await}, the wait
 * of every synchronous call) with the reply arriving and the caller being interrupted.
 * What {@link RedisCalls} promises: no interrupt ends the wait, and the caller gets its
 * interrupt status back; a call whose answer did not come in time throws
 * {@link LockOutcomeUnknownException}, one whose answer came returns it. So the outcome
 * is exactly one of the two, and agrees with the reply's side: a call that says no answer
 * came has cancelled the command (its answer, should it come, is dropped, and the caller
 * settles what it may have done); one whose answer came by the deadline returns it.
 *
 * <p>
 * The model checker's clock stands still: a call whose deadline is now looks for its
 * reply once, as a call does when its time runs out, and races the reply arriving at that
 * very moment; a call whose deadline is later waits until the reply comes. The timer of
 * {@link RedisCalls#within}, the JDK's, is one the model checker cannot schedule;
 * {@link RedisCallsDeadlineTests} checks that one.
 */
class RedisCallsLincheckTests {

	@Test
	void aReplyAtTheDeadlineIsTheAnswerOrCancelledNeverBoth() {
		check(atTheDeadline(false), atTheDeadline(true));
	}

	@Test
	void anInterruptNeitherEndsTheWaitForTheReplyNorIsLost() {
		check(beforeTheDeadline());
	}

	private static void check(ExecutionScenario... scenarios) {
		LincheckRuns.modelChecking(scenarios).verifier(EpsilonVerifier.class).check(Call.class);
	}

	// the reply arrives as the call's time runs out, and the caller may be interrupted
	// at that moment too
	private static ExecutionScenario atTheDeadline(boolean interrupted) {
		Class<Call> type = Call.class;
		List<List<Actor>> parallel = new ArrayList<>(
				List.of(List.of(call(type, "awaitAtTheDeadline")), List.of(call(type, "replyArrives"))));
		if (interrupted) {
			parallel.add(List.of(call(type, "interruptTheCaller")));
		}
		return LincheckRuns.scenario(type, List.of(), parallel, List.of());
	}

	// the caller is interrupted while it waits, and the reply comes before its deadline
	private static ExecutionScenario beforeTheDeadline() {
		Class<Call> type = Call.class;
		return LincheckRuns.scenario(type, List.of(), List.of(List.of(call(type, "awaitBeforeTheDeadline")),
				List.of(call(type, "interruptTheCaller"), call(type, "replyArrives"))), List.of());
	}

	static final String GRANTED = "granted";

	/** One call waiting for its reply. */
	public static class Call {

		private final RedisCalls calls = new RedisCalls(noConnections(), 1000);

		private final CompletableFuture<String> reply = new CompletableFuture<>();

		@Nullable private Thread caller;

		private boolean interruptSent;

		private boolean repliedBeforeTheCall;

		@Nullable private String outcome;

		private boolean interruptKept;

		/** The call's time runs out now: it looks for its reply once. */
		@Operation
		public void awaitAtTheDeadline() {
			await(System.nanoTime());
		}

		/** The call has time left: it waits for its reply. */
		@Operation
		public void awaitBeforeTheDeadline() {
			await(System.nanoTime() + TimeUnit.SECONDS.toNanos(1));
		}

		private void await(long deadline) {
			synchronized (this) {
				this.caller = Thread.currentThread();
				this.repliedBeforeTheCall = this.reply.isDone();
			}
			String outcome;
			try {
				outcome = this.calls.await("acquire lock 'a' (key 'lock:{a}')", this.reply, deadline);
			}
			catch (LockOutcomeUnknownException ex) {
				outcome = "unknown";
			}
			catch (RuntimeException ex) {
				outcome = "failed: " + ex;
			}
			// no interrupt is left for the thread's next operation
			synchronized (this) {
				this.caller = null;
				this.interruptKept = Thread.interrupted();
				this.outcome = outcome;
			}
		}

		@Operation
		public void replyArrives() {
			this.reply.complete(GRANTED);
		}

		@Operation
		public synchronized void interruptTheCaller() {
			Thread caller = this.caller;
			if (caller != null) {
				this.interruptSent = true;
				caller.interrupt();
			}
		}

		@Validate
		public synchronized void exactlyOneOutcome() {
			String outcome = this.outcome;
			if (outcome == null) {
				throw new AssertionError("The call did not end");
			}
			if (outcome.equals("unknown")) {
				if (this.repliedBeforeTheCall) {
					throw new AssertionError("The reply came before the call, but the call said no answer came");
				}
				if (!this.reply.isCancelled()) {
					throw new AssertionError("The call said no answer came, but the reply came, and nobody reads it");
				}
			}
			else if (!outcome.equals(GRANTED)) {
				throw new AssertionError("The call ended neither with the reply nor as unknown: " + outcome);
			}
			if (this.interruptSent != this.interruptKept) {
				throw new AssertionError(this.interruptSent ? "The caller was interrupted, but its status was lost"
						: "The caller was not interrupted, but its status is set");
			}
		}

	}

	// the connection factory of calls that are given their replies: never asked for one
	static RedisConnectionFactory noConnections() {
		return (RedisConnectionFactory) Proxy.newProxyInstance(RedisCallsLincheckTests.class.getClassLoader(),
				new Class<?>[] { RedisConnectionFactory.class }, (proxy, method, args) -> {
					throw new UnsupportedOperationException("No connections");
				});
	}

}
