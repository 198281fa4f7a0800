package io.github.redislock.internal;

import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Validate;
import org.junit.jupiter.api.Test;

import java.util.List;

import static io.github.redislock.internal.LincheckRuns.call;

/**
 * Every interleaving of a settlement ({@link Settlements}: the background release of a
 * grant whose reply never came) with its owner locking the same name again, which claims
 * the settlement first: the two never overlap, so the settlement never frees the lock the
 * owner has just taken (a claim waits for a settlement under way); and with the client's
 * close. Redis is {@link InMemoryRedis}, the settlement thread a {@link ManualExecutor}
 * run as an operation.
 */
class SettlementsLincheckTests {

	@Test
	void aSettlementNeverFreesTheLockItsOwnerTookAgain() {
		LincheckRuns
			.modelChecking(
					scenario(List.of(List.of(call(Owner1.class, "locksAgain")),
							List.of(call(Owner1.class, "settlementThreadRuns")))),
					scenario(List.of(List.of(call(Owner1.class, "locksAgain")),
							List.of(call(Owner1.class, "settlementThreadRuns")), List.of(call(Owner1.class, "close")))))
			.check(Owner1.class);
	}

	// the owner's acquisition was granted without a reply, and is being settled
	private static ExecutionScenario scenario(List<List<org.jetbrains.kotlinx.lincheck.Actor>> parallel) {
		Class<Owner1> type = Owner1.class;
		return LincheckRuns.scenario(type, List.of(call(type, "grantedWithoutReply"), call(type, "settle")), parallel,
				List.of());
	}

	static final LockKeys KEYS = ExclusiveLock.INSTANCE.keys("lincheck:", "lock");

	/** One owner's settlement, its next acquisition, and Redis. */
	public static class Owner1 {

		private final InMemoryRedis redis = new InMemoryRedis();

		private final ManualExecutor settleThread = new ManualExecutor();

		private final Settlements settlements = new Settlements(this.redis.commands(), this.settleThread);

		private final Owner owner = Owner.handle("lincheck", 1);

		private boolean holds;

		@Operation
		public void grantedWithoutReply() {
			this.redis.grantedWithoutReply(KEYS, this.owner);
		}

		@Operation
		public void settle() {
			this.settlements.settle(KEYS, this.owner, Settlements.Reason.ACQUIRE);
		}

		/** The owner acquires the lock again, claiming the settlement first. */
		@Operation
		public boolean locksAgain() {
			this.settlements.claim(KEYS, this.owner);
			this.holds = this.redis.commands()
				.acquire(KEYS, this.owner, Lease.watchdog(30_000), 0, 1, false, 0) instanceof LockReply.Granted;
			return this.holds;
		}

		@Operation
		public void settlementThreadRuns() {
			this.settleThread.runDue();
		}

		@Operation
		public void close() {
			this.settlements.close();
		}

		@Validate
		public void ownerKeepsWhatItTook() {
			this.settleThread.runDue();
			if (this.holds && !this.owner.id().equals(this.redis.holder(KEYS))) {
				throw new AssertionError("The owner took the lock again, and its settlement freed it");
			}
			if (!this.holds && this.redis.holder(KEYS) != null && !this.settleThread.isShutdown()) {
				throw new AssertionError("Nobody holds the lock, and it was not settled");
			}
		}

	}

}
