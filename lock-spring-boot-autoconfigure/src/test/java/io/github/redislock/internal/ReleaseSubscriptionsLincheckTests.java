package io.github.redislock.internal;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static io.github.redislock.internal.LincheckRuns.call;

/**
 * Every interleaving of waiters joining and leaving a lock's release channel
 * ({@link ReleaseSubscriptions}) with Redis confirming subscriptions, the janitor
 * dropping a channel idle for its grace period, and the client's close: a waiter that
 * joined and has not left is on a subscribed channel, so that it hears the next release
 * (a drop never unsubscribes a channel a new waiter joined), and after a close every join
 * has ended. The transport is {@link InMemoryRedis}'s, the janitor a
 * {@link ManualExecutor} whose grace period ends when the test says so.
 */
class ReleaseSubscriptionsLincheckTests {

	@Test
	void aWaiterThatJoinedIsHeardAndACloseEndsEveryJoin() {
		Class<Channels> type = Channels.class;
		ExecutionScenario dropAgainstJoin = scenario(
				List.of(call(type, "join", 1), call(type, "redisConfirms"), call(type, "leave", 1)),
				List.of(List.of(call(type, "join", 2)), List.of(call(type, "gracePeriodEnds"))));
		ExecutionScenario closeAgainstJoin = scenario(List.of(), List.of(List.of(call(type, "join", 1)),
				List.of(call(type, "close")), List.of(call(type, "redisConfirms"))));
		ExecutionScenario joinAgainstLeave = scenario(List.of(call(type, "join", 1)),
				List.of(List.of(call(type, "join", 2), call(type, "leave", 2)),
						List.of(call(type, "redisConfirms"), call(type, "leave", 1))));
		LincheckRuns.modelChecking(dropAgainstJoin, closeAgainstJoin, joinAgainstLeave).check(type);
	}

	private static ExecutionScenario scenario(List<Actor> before, List<List<Actor>> parallel) {
		return LincheckRuns.scenario(Channels.class, before, parallel, List.of());
	}

	static final LockKeys KEYS = ExclusiveLock.INSTANCE.keys("lincheck:", "lock");

	static final int WAITERS = 3;

	/** One client's subscriptions to one lock's channel. */
	public static class Channels {

		private final InMemoryRedis redis = new InMemoryRedis();

		private final ManualExecutor janitor = new ManualExecutor();

		private final ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(InMemoryRedis.calls(), 1000,
				new WaitQueues("lincheck"), this.janitor, this.redis::transport);

		@SuppressWarnings("unchecked")
		private final CompletableFuture<ReleaseSubscriptions.Membership>[] joins = new CompletableFuture[WAITERS];

		private final boolean[] left = new boolean[WAITERS];

		private boolean closed;

		/** A waiter starts waiting for the lock. */
		@Operation
		public void join(@Param(gen = IntGen.class, conf = "1:2") int waiter) {
			this.joins[waiter] = this.subscriptions.join(KEYS, RedisCalls.NO_LIMIT);
		}

		/**
		 * The waiter stops waiting, if its join succeeded (a failed one needs no leave).
		 */
		@Operation
		public void leave(@Param(gen = IntGen.class, conf = "1:2") int waiter) {
			CompletableFuture<ReleaseSubscriptions.Membership> join = this.joins[waiter];
			if (join != null && join.isDone() && !join.isCompletedExceptionally() && !this.left[waiter]) {
				this.left[waiter] = true;
				this.subscriptions.leave(join.join());
			}
		}

		@Operation
		public void redisConfirms() {
			this.redis.transport().confirm();
		}

		@Operation
		public void gracePeriodEnds() {
			this.janitor.fireTimers();
		}

		@Operation
		public void close() {
			this.closed = true;
			this.subscriptions.close();
		}

		@Validate
		public void everyWaiterIsHeard() {
			this.redis.transport().confirm();
			this.janitor.runDue();
			for (int i = 0; i < WAITERS; i++) {
				@Nullable CompletableFuture<ReleaseSubscriptions.Membership> join = this.joins[i];
				if (join == null) {
					continue;
				}
				if (!join.isDone()) {
					throw new AssertionError("Waiter " + i + "'s join has not ended"
							+ (this.closed ? " with the client" : ", with its subscription confirmed"));
				}
				if (!this.closed && !join.isCompletedExceptionally() && !this.left[i]
						&& !this.redis.transport().isSubscribed(KEYS.channel())) {
					throw new AssertionError("Waiter " + i + " waits on a channel that is not subscribed");
				}
			}
		}

	}

}
