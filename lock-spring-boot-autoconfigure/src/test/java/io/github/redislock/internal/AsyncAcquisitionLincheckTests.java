package io.github.redislock.internal;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;

import io.micrometer.observation.ObservationRegistry;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.BooleanGen;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static io.github.redislock.internal.LincheckRuns.call;

/**
 * Every interleaving of asynchronous acquisitions ({@link AsyncAcquisitions},
 * {@link AsyncAcquisition}) with what happens around them: Redis' replies, release
 * messages, subscriptions confirmed, the caller cancelling, the client closing. The
 * client's async and settlement threads are {@link ManualExecutor}s whose tasks run as
 * operations, and Redis is {@link InMemoryRedis}; the structures themselves are the
 * client's own, wired as the engine wires them.
 *
 * <p>
 * After each run, with every reply delivered and every task run (timers not fired): a
 * caller's future that completed with a hold has the lock in Redis, and the lock is held
 * for none of this client's owners otherwise (a grant that came as the caller cancelled
 * is given back); an acquisition that ended without the lock left no waiter's mark on it;
 * every acquisition ended, or sleeps while another client holds the lock (none sleeps
 * through a free lock); after a close, every acquisition ended.
 */
class AsyncAcquisitionLincheckTests {

	@Test
	void aGrantThatComesAsTheCallerCancelsIsGivenBack() {
		check(cancelAgainstGrant(false), cancelAgainstGrant(true));
	}

	@Test
	void closingTheClientWhileItsFirstWaiterSubscribesEndsTheWaiter() {
		check(closeAgainstSubscribing(), closeAgainstGrant());
	}

	@Test
	void aWaiterWokenAsItIsCancelledHandsTheWakeUpOn() {
		check(wakeAgainstCancel());
	}

	/**
	 * The interleaving of {@link #wakeAgainstCancel()} that loses the wake-up, written
	 * out: the first waiter's wake-up task has taken the wake-up (its timer is cancelled
	 * then) when its caller cancels; the task then finds the acquisition ended and sends
	 * nothing. Unless it hands the wake-up on, the second waiter sleeps while the lock is
	 * free, until its timer (the old holder's lease end).
	 */
	@Test
	void aWaiterCancelledRightAfterItsWakeUpHandsItOn() {
		Client client = new Client();
		client.anotherClientTakes();
		client.acquire(1, true, false);
		client.acquire(2, true, false);
		client.quiesce();
		client.anotherClientReleases();
		client.asyncExecutor.onNextCancel(() -> client.cancel(1));
		client.endsAsPromised();
	}

	/**
	 * The contract tests' flake, written out: a waiter's subscription is confirmed and it
	 * tries once more, as its caller (who saw it waiting) cancels; the attempt's command
	 * leaves its client after the cancel's withdrawal did. Withdrawn at once, the mark
	 * was put back by the attempt, for a waiter that was gone (and an attempt that came
	 * to Redis after the holder's release took the lock for it); withdrawn once the
	 * attempt is answered, it goes.
	 */
	@Test
	void aWaiterCancelledAsItTriesAgainLeavesNoMark() {
		Client client = new Client();
		client.anotherClientTakes();
		client.acquire(1, true, false);
		client.redisReplies();
		client.asyncThreadRuns();
		client.redis.onNextAcquireSent(() -> client.cancel(1));
		client.subscriptionConfirmed();
		client.asyncThreadRuns();
		client.endsAsPromised();
	}

	@Test
	void aLockPassedToAWaiterThatGivesUpIsNotLost() {
		check(passAgainstCancel());
	}

	// what passAgainstCancel races with, one step after the other: the lock is passed
	// without being freed in Redis
	@Test
	void theReleaseOfPassAgainstCancelPassesTheLockLocally() {
		Client client = new Client();
		client.anotherClientTakes();
		client.acquire(1, true, false);
		client.acquire(2, true, false);
		client.quiesce();
		client.anotherClientReleases();
		client.quiesce();
		client.release(1);
		client.quiesce();
		Hold passed = client.results[2].join();
		if (passed == null || !passed.redisOwner().equals(client.owners[1])
				|| !client.owners[1].id().equals(client.redis.holder(KEYS))) {
			throw new AssertionError("Not passed locally");
		}
		client.endsAsPromised();
	}

	private static void check(ExecutionScenario... scenarios) {
		LincheckRuns.modelChecking(scenarios).check(Client.class);
	}

	// the acquisition's grant arrives, as the caller cancels and the async thread runs
	private static ExecutionScenario cancelAgainstGrant(boolean direct) {
		Class<Client> type = Client.class;
		return LincheckRuns.scenario(type, List.of(call(type, "acquire", 1, false, direct)),
				List.of(List.of(call(type, "redisReplies")), List.of(call(type, "cancel", 1)),
						List.of(call(type, "asyncThreadRuns"), call(type, "settlementsRun"))),
				List.of());
	}

	// the first waiter of a held lock has sent its SUBSCRIBE: Redis confirms it as the
	// client closes
	private static ExecutionScenario closeAgainstSubscribing() {
		Class<Client> type = Client.class;
		return LincheckRuns.scenario(type,
				List.of(call(type, "anotherClientTakes"), call(type, "acquire", 1, true, false),
						call(type, "redisReplies"), call(type, "asyncThreadRuns")),
				List.of(List.of(call(type, "close")), List.of(call(type, "subscriptionConfirmed")),
						List.of(call(type, "asyncThreadRuns"))),
				List.of());
	}

	private static ExecutionScenario closeAgainstGrant() {
		Class<Client> type = Client.class;
		return LincheckRuns.scenario(type, List.of(call(type, "acquire", 1, true, false)),
				List.of(List.of(call(type, "close")), List.of(call(type, "redisReplies")),
						List.of(call(type, "asyncThreadRuns"))),
				List.of());
	}

	// two waiters asleep; the holder of another client releases, which wakes the first,
	// as that one is cancelled
	private static ExecutionScenario wakeAgainstCancel() {
		Class<Client> type = Client.class;
		return LincheckRuns.scenario(type,
				List.of(call(type, "anotherClientTakes"), call(type, "acquire", 1, true, false),
						call(type, "acquire", 2, true, false), call(type, "quiesce"),
						call(type, "anotherClientReleases")),
				List.of(List.of(call(type, "cancel", 1)), List.of(call(type, "asyncThreadRuns"))), List.of());
	}

	// owner 1 holds the lock (granted as owner 2 waited, with tokens for local passes);
	// it releases, passing the lock to owner 2, as owner 2 is cancelled
	private static ExecutionScenario passAgainstCancel() {
		Class<Client> type = Client.class;
		return LincheckRuns.scenario(type,
				List.of(call(type, "anotherClientTakes"), call(type, "acquire", 1, true, false),
						call(type, "acquire", 2, true, false), call(type, "quiesce"),
						call(type, "anotherClientReleases"), call(type, "quiesce")),
				List.of(List.of(call(type, "release", 1)), List.of(call(type, "cancel", 2)),
						List.of(call(type, "asyncThreadRuns"))),
				List.of());
	}

	static final int OWNERS = 3;

	// this client passes the lock between its owners without freeing it in Redis
	static final int MAX_LOCAL_PASSES = 2;

	static final LockKeys KEYS = ExclusiveLock.INSTANCE.keys("lincheck:", "lock");

	/** One client's asynchronous acquisitions of one lock. */
	public static class Client {

		private final InMemoryRedis redis = new InMemoryRedis();

		private final ManualExecutor asyncExecutor = new ManualExecutor();

		private final ManualExecutor settleExecutor = new ManualExecutor();

		private final ManualExecutor janitor = new ManualExecutor();

		private final WaitQueues queues = new WaitQueues("lincheck");

		private final ReleaseSubscriptions subscriptions;

		private final AsyncThread asyncThread = new AsyncThread(this.asyncExecutor);

		private final Settlements settlements;

		private final AsyncAcquisitions acquisitions;

		private final LockReleases releases;

		private final boolean[] released = new boolean[OWNERS];

		private final Owner[] owners = new Owner[OWNERS];

		@SuppressWarnings("unchecked")
		private final CompletableFuture<@Nullable Hold>[] results = new CompletableFuture[OWNERS];

		private boolean closed;

		public Client() {
			LockCommands commands = this.redis.commands();
			this.subscriptions = new ReleaseSubscriptions(InMemoryRedis.calls(), 1000, this.queues, this.janitor,
					this.redis::transport);
			this.settlements = new Settlements(commands, this.settleExecutor);
			LockObservations observations = new LockObservations(ObservationRegistry.NOOP);
			Holds holds = new Holds(this.queues);
			HoldLedger ledger = new HoldLedger(holds, observations, new LeaseLostNotifier(List.of()));
			this.releases = new LockReleases(commands, holds, ledger, this.settlements, observations, this.asyncThread,
					MAX_LOCAL_PASSES);
			LockReleases releases = this.releases;
			this.acquisitions = new AsyncAcquisitions(
					new Waiting(commands, this.queues, this.subscriptions, MAX_LOCAL_PASSES), this.settlements,
					observations, ledger, new WaiterWithdrawals(commands), releases, this.asyncThread);
			for (int i = 0; i < OWNERS; i++) {
				this.owners[i] = Owner.handle("lincheck", i);
			}
		}

		/**
		 * An owner starts acquiring the lock.
		 * @param waits whether it waits for the lock (10 s), or takes it only if free
		 * @param direct whether a grant completes the caller's future where it arrives
		 * (the reactive client), rather than on the async thread
		 */
		@Operation
		public void acquire(@Param(gen = IntGen.class, conf = "1:2") int owner,
				@Param(gen = BooleanGen.class) boolean waits, @Param(gen = BooleanGen.class) boolean direct) {
			Executor continuations = direct ? Runnable::run : null;
			this.results[owner] = this.acquisitions.acquire(KEYS, this.owners[owner],
					waits ? Wait.of(Duration.ofSeconds(10)) : Wait.NONE, Lease.watchdog(30_000), continuations);
		}

		@Operation
		public void cancel(@Param(gen = IntGen.class, conf = "1:2") int owner) {
			CompletableFuture<@Nullable Hold> result = this.results[owner];
			if (result != null) {
				result.cancel(false);
			}
		}

		/**
		 * The owner releases the lock it was given: passed to this client's next waiter
		 * when it can be without asking Redis, else freed there.
		 */
		@Operation
		public void release(@Param(gen = IntGen.class, conf = "1:2") int owner) {
			CompletableFuture<@Nullable Hold> result = this.results[owner];
			if (result != null && result.isDone() && !result.isCompletedExceptionally() && result.join() != null
					&& !this.released[owner]) {
				this.released[owner] = true;
				this.releases.releaseAsync(result.join(), 0);
			}
		}

		/** Redis' replies arrive (on Lettuce's event loop). */
		@Operation
		public void redisReplies() {
			this.redis.answer();
		}

		@Operation
		public void subscriptionConfirmed() {
			this.redis.transport().confirm();
		}

		@Operation
		public void asyncThreadRuns() {
			this.asyncExecutor.runDue();
		}

		@Operation
		public void settlementsRun() {
			this.settleExecutor.runDue();
		}

		@Operation
		public void anotherClientTakes() {
			this.redis.takenByAnotherClient(KEYS);
		}

		@Operation
		public void anotherClientReleases() {
			this.redis.releasedByAnotherClient(KEYS);
		}

		/** The client closes, as the engine closes these parts. */
		@Operation
		public void close() {
			this.closed = true;
			this.asyncThread.close();
			this.acquisitions.close();
			this.settlements.close();
			this.subscriptions.close();
		}

		/** Everything that is due happens: replies, tasks, confirmations (no timers). */
		@Operation
		public void quiesce() {
			for (int i = 0; i < 100; i++) {
				boolean any = this.redis.answer();
				any |= this.asyncExecutor.runDue();
				any |= this.settleExecutor.runDue();
				any |= this.redis.transport().confirm();
				if (!any) {
					return;
				}
			}
			throw new AssertionError("Still busy after 100 rounds");
		}

		@Validate
		public void endsAsPromised() {
			quiesce();
			String holder = this.redis.holder(KEYS);
			List<String> asleep = asleep();
			Hold active = null;
			for (int i = 0; i < OWNERS; i++) {
				CompletableFuture<@Nullable Hold> result = this.results[i];
				if (result == null) {
					continue;
				}
				String owner = this.owners[i].id();
				Hold hold = (result.isDone() && !result.isCompletedExceptionally()) ? result.join() : null;
				if (hold != null && !this.released[i]) {
					if (active != null) {
						throw new AssertionError(active.owner().id() + " and " + owner + " both hold the lock");
					}
					active = hold;
					if (!hold.redisOwner().id().equals(holder)) {
						throw new AssertionError(owner + " was told it holds the lock, but Redis has " + holder);
					}
				}
				if (result.isDone()) {
					if (hold == null && this.redis.isMarkedBy(KEYS, this.owners[i])) {
						throw new AssertionError(owner + "'s acquisition ended (" + describe(result)
								+ "), but its waiter's mark is still on the lock");
					}
					continue;
				}
				if (this.closed) {
					throw new AssertionError(owner + "'s acquisition did not end with the client");
				}
				if (!asleep.contains(owner)) {
					throw new AssertionError(owner + "'s acquisition neither ended nor sleeps");
				}
				if (holder == null) {
					throw new AssertionError(owner + " sleeps while the lock is free: a wake-up was lost");
				}
			}
			if (active == null && holder != null && holder.startsWith("lincheck:") && !this.closed) {
				throw new AssertionError(
						"Redis has the lock for " + holder + ", but no caller of this client holds it");
			}
		}

		private List<String> asleep() {
			return this.queues.all().stream().flatMap((queue) -> queue.asleepOwnerIds().stream()).toList();
		}

		private static String describe(CompletableFuture<?> result) {
			if (!result.isDone()) {
				return "not done";
			}
			return result.isCancelled() ? "cancelled" : result.isCompletedExceptionally() ? "failed" : "completed";
		}

	}

}
