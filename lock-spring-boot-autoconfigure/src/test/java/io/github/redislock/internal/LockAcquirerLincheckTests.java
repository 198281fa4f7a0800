package io.github.redislock.internal;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import io.micrometer.observation.ObservationRegistry;
import org.jetbrains.kotlinx.lincheck.Actor;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.jetbrains.lincheck.datastructures.IntGen;
import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.lincheck.datastructures.verifier.EpsilonVerifier;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static io.github.redislock.internal.LincheckRuns.call;

/**
 * Every interleaving of this client's threads waiting for one lock in
 * {@link LockAcquirer}, as the {@link LockEngine} runs it (with its wait queues, release
 * subscriptions, local passes, hold ledger and waiter withdrawals), with tryLocks,
 * releases, interrupts, and another client taking and releasing the lock. Redis is
 * {@link InMemoryRedis}, which confirms a subscription as it is sent. The threads park
 * for real: Lincheck's model checker schedules their parking, unparking and interrupts as
 * it schedules the rest (a sleeping waiter parks on a wake-up count of its own, so a
 * wake-up and an interrupt that both reach it while it is parked are one of the
 * interleavings).
 *
 * <p>
 * The model checker's clock stands still ({@link System#nanoTime()} answers the same
 * every time), and Redis answers a busy lock with a lease of a day: no waiter's sleep
 * ends by its time, so a wake-up lost leaves a thread asleep, which Lincheck reports as
 * an execution that hung. (A waiter holding off for another owner of this client looks
 * again after {@link LockAcquirer#PASS_RECHECK_NANOS}, which would hide a wake-up lost
 * there.) Every operation releases what it took, and the other client releases what it
 * takes; so in every interleaving every waiter must get the lock, or end its wait by the
 * events below. A wait ends deterministically: by an interrupt (the {@code interrupt}
 * operation, while the target acquires), or by time, for an acquisition whose start lies
 * a whole wait back, so that its time is up after its first attempt (its sleep ending by
 * time is the one path the model checker cannot reach).
 *
 * <p>
 * What must hold in every interleaving, checked as each operation ends and after each
 * run:
 * <ul>
 * <li>exclusion: at most one owner holds the lock at a time, and Redis (the double) has
 * it for that owner;</li>
 * <li>no lost wake-up: every operation ends (see above);</li>
 * <li>a waiter that gave up (interrupted, or its time up) left no mark in Redis;</li>
 * <li>an interrupt ends an interruptible wait or stays set, and one that is not
 * interruptible gets the lock with its interrupt status restored; nothing else ends a
 * wait or sets the status;</li>
 * <li>a tryLock is refused only if, when it began, the lock was held in Redis or by an
 * owner of this client (releasing it included), or it was taken meanwhile.</li>
 * </ul>
 */
class LockAcquirerLincheckTests {

	@Test
	void waitersOfOneClientNeverShareTheLockNorMissItsRelease() {
		LincheckRuns.modelChecking()
			.threads(3)
			.actorsPerThread(2)
			.actorsBefore(0)
			.actorsAfter(0)
			.verifier(EpsilonVerifier.class)
			.check(Client.class);
	}

	@Test
	void anotherClientsReleaseReachesWaitersAsTheyAreInterrupted() {
		check(releaseAgainstInterrupt());
	}

	@Test
	void aWaiterInterruptedAsItIsWokenHandsTheWakeUpOn() {
		check(wokenThenInterrupted());
	}

	@Test
	void aWaiterWhoseTimeIsUpLeavesNoMarkAsTheLockIsReleased() {
		check(timeUpAgainstRelease());
	}

	@Test
	void aTryLockIsRefusedOnlyWhileTheLockIsTaken() {
		check(tryLockAgainstPass());
	}

	private static void check(ExecutionScenario... scenarios) {
		LincheckRuns.modelChecking(scenarios).verifier(EpsilonVerifier.class).check(WithAnotherClient.class);
	}

	// two waiters asleep while another client holds the lock: it releases it, which wakes
	// the one asleep longest, as that one is interrupted; then the other is interrupted
	// (interruptible or not, whichever was second)
	private static ExecutionScenario releaseAgainstInterrupt() {
		Class<WithAnotherClient> type = WithAnotherClient.class;
		List<List<Actor>> parallel = List.of(List.of(call(type, "lockAndUnlock", 1)),
				List.of(call(type, "lockUninterruptiblyAndUnlock", 2)), List.of(call(type, "untilAsleep", 2),
						call(type, "anotherClientReleasesAsItsFirstWaiterIsInterrupted"), call(type, "interrupt", 2)));
		return LincheckRuns.scenario(type, List.of(call(type, "anotherClientTakes")), parallel, List.of());
	}

	// two waiters asleep while another client holds the lock, both interruptible: it
	// releases it, which wakes the one asleep longest, and that one is interrupted before
	// its park returns (or as it returns). Nothing else ends the other's sleep: only the
	// wake-up the interrupted one hands on lets it take the lock.
	private static ExecutionScenario wokenThenInterrupted() {
		Class<WithAnotherClient> type = WithAnotherClient.class;
		List<List<Actor>> parallel = List.of(List.of(call(type, "lockAndUnlock", 1)),
				List.of(call(type, "lockAndUnlock", 2)), List.of(call(type, "untilAsleep", 2),
						call(type, "anotherClientReleasesAsItsFirstWaiterIsInterrupted")));
		return LincheckRuns.scenario(type, List.of(call(type, "anotherClientTakes")), parallel, List.of());
	}

	// a waiter's time is up after its first attempt, as the other client releases the
	// lock to another waiter
	private static ExecutionScenario timeUpAgainstRelease() {
		Class<WithAnotherClient> type = WithAnotherClient.class;
		List<List<Actor>> parallel = List.of(List.of(call(type, "tryLockUntilItsTimeIsUp", 1)),
				List.of(call(type, "lockAndUnlock", 2)), List.of(call(type, "anotherClientReleases")));
		return LincheckRuns.scenario(type, List.of(call(type, "anotherClientTakes")), parallel, List.of());
	}

	// two waiters of this client pass the lock on between them while a third tries it
	private static ExecutionScenario tryLockAgainstPass() {
		Class<WithAnotherClient> type = WithAnotherClient.class;
		List<List<Actor>> parallel = List.of(List.of(call(type, "lockAndUnlock", 1)),
				List.of(call(type, "lockAndUnlock", 2)),
				List.of(call(type, "anotherClientReleases"), call(type, "tryLockAndUnlock", 3)));
		return LincheckRuns.scenario(type, List.of(call(type, "anotherClientTakes")), parallel, List.of());
	}

	// Lincheck's thread ids: 0 for the parts before and after the parallel one
	static final int THREADS = 4;

	static final int MAX_LOCAL_PASSES = 2;

	static final LockKeys KEYS = ExclusiveLock.INSTANCE.keys("lincheck:", "lock");

	static final Lease LEASE = Lease.watchdog(30_000);

	/** How one acquisition is run. */
	interface Acquire {

		@Nullable Hold run() throws InterruptedException;

	}

	/**
	 * One client's threads waiting for one lock; the operations of random scenarios. Each
	 * takes the lock and releases it again, and the other client's only operation
	 * releases what it takes: nothing is left held for a waiter to wait for for good.
	 */
	public static class Client {

		final InMemoryRedis redis = new InMemoryRedis();

		final WaitQueues queues = new WaitQueues("lincheck");

		private final Holds holds = new Holds(this.queues);

		private final LockEngine engine;

		// the engine's way for a wait whose time is up: the same structures, on the
		// same state
		private final LockAcquirer acquirer;

		private final HoldLedger ledger;

		private final WaiterWithdrawals withdrawals;

		private final Owner[] owners = new Owner[THREADS];

		// the thread of each owner while it acquires, which an interrupt may reach
		private final @Nullable Thread[] acquiring = new Thread[THREADS];

		private final boolean[] interruptsSent = new boolean[THREADS];

		// owners told they hold the lock, until they start releasing it
		private final AtomicInteger holding = new AtomicInteger();

		// owners told they hold the lock, until their release returned
		private final AtomicInteger holdingOrReleasing = new AtomicInteger();

		private final List<String> violations = new ArrayList<>();

		public Client() {
			LockCommands commands = this.redis.commands();
			ReleaseSubscriptions subscriptions = new ReleaseSubscriptions(InMemoryRedis.calls(), 1000, this.queues,
					new ManualExecutor(), this.redis::transportConfirmingAtOnce);
			LeaseLostNotifier notifier = new LeaseLostNotifier(List.of());
			LockObservations observations = new LockObservations(ObservationRegistry.NOOP);
			Waiting waiting = new Waiting(commands, this.queues, subscriptions, MAX_LOCAL_PASSES);
			this.engine = new LockEngine(new Owners("lincheck"), waiting, this.holds,
					new LeaseWatchdog(commands, this.holds, LEASE.millis(), false, notifier, new ManualExecutor()),
					new Settlements(commands, new ManualExecutor()), notifier, observations);
			this.acquirer = new LockAcquirer(waiting, this.holds);
			this.ledger = new HoldLedger(this.holds, observations, notifier);
			this.withdrawals = new WaiterWithdrawals(commands);
			for (int i = 0; i < THREADS; i++) {
				this.owners[i] = Owner.handle("lincheck", i);
			}
		}

		/**
		 * The owner waits for the lock without a limit, interruptible (as
		 * {@code lockInterruptibly()}), and releases it.
		 */
		@Operation
		public void lockAndUnlock(@Param(gen = ThreadIdGen.class) int thread) {
			Owner owner = this.owners[thread];
			acquire(thread, true, true, () -> this.engine.acquire(KEYS, owner, Wait.NO_LIMIT, LEASE, true));
		}

		/**
		 * The owner waits for the lock without a limit, not interruptible (as
		 * {@code lock()}), and releases it.
		 */
		@Operation
		public void lockUninterruptiblyAndUnlock(@Param(gen = ThreadIdGen.class) int thread) {
			Owner owner = this.owners[thread];
			acquire(thread, false, true, () -> this.engine.acquire(KEYS, owner, Wait.NO_LIMIT, LEASE, false));
		}

		/** The owner takes the lock if it is free, and releases it. */
		@Operation
		public void tryLockAndUnlock(@Param(gen = ThreadIdGen.class) int thread) {
			Owner owner = this.owners[thread];
			boolean takenBefore;
			long takingsBefore;
			synchronized (this.redis) {
				takenBefore = this.redis.holder(KEYS) != null || this.holdingOrReleasing.get() > 0;
				takingsBefore = this.redis.grants();
			}
			Hold hold = acquire(thread, true, false, () -> this.engine.acquire(KEYS, owner, Wait.NONE, LEASE, true));
			if (hold == null && !takenBefore && this.redis.grants() == takingsBefore) {
				violation(owner + "'s tryLock was refused, though nobody held the lock or took it meanwhile");
			}
		}

		/**
		 * The owner waits for the lock (interruptibly), but its time is up after its
		 * first attempt; if it got the lock, it releases it. The path of
		 * {@link LockEngine}'s acquisitions, with a start a whole wait back.
		 */
		@Operation
		public void tryLockUntilItsTimeIsUp(@Param(gen = ThreadIdGen.class) int thread) {
			Owner owner = this.owners[thread];
			Wait wait = Wait.of(Duration.ofSeconds(1));
			long start = System.nanoTime() - wait.nanos();
			acquire(thread, true, false, () -> {
				try {
					Hold hold = this.acquirer.acquire(KEYS, owner, LEASE, start, wait, true,
							(granted) -> this.ledger.granted(KEYS, owner, granted, LEASE, start));
					if (hold == null) {
						this.withdrawals.withdrawAndAwait(KEYS, owner, wait, start);
					}
					return hold;
				}
				catch (InterruptedException ex) {
					this.withdrawals.withdrawAndAwait(KEYS, owner, wait, start);
					throw ex;
				}
			});
		}

		/** Interrupts the owner's thread, if it acquires the lock right now. */
		@Operation
		public void interrupt(@Param(gen = IntGen.class, conf = "1:3") int thread) {
			synchronized (this.acquiring) {
				Thread waiter = this.acquiring[thread];
				if (waiter != null) {
					this.interruptsSent[thread] = true;
					waiter.interrupt();
				}
			}
		}

		/** Another client takes the lock if it is free, and releases it again. */
		@Operation
		public void anotherClientTakesAndReleases() {
			if (this.redis.takenByAnotherClientIfFree(KEYS)) {
				this.redis.releasedByAnotherClient(KEYS);
			}
		}

		/**
		 * Runs the acquisition while an interrupt may reach it, and checks how it ended;
		 * a hold it got is released.
		 * @param mustGetIt whether only an interrupt may end it without the lock
		 */
		@Nullable Hold acquire(int thread, boolean interruptible, boolean mustGetIt, Acquire acquisition) {
			Owner owner = this.owners[thread];
			synchronized (this.acquiring) {
				this.acquiring[thread] = Thread.currentThread();
				this.interruptsSent[thread] = false;
			}
			Hold hold = null;
			boolean interruptedException = false;
			try {
				hold = acquisition.run();
			}
			catch (InterruptedException ex) {
				interruptedException = true;
			}
			catch (RuntimeException ex) {
				violation(owner + "'s acquisition failed: " + ex);
			}
			boolean interruptSet;
			boolean interruptSent;
			// no interrupt is left for the thread's next operation
			synchronized (this.acquiring) {
				this.acquiring[thread] = null;
				interruptSet = Thread.interrupted();
				interruptSent = this.interruptsSent[thread];
			}
			if (hold != null) {
				this.holdingOrReleasing.incrementAndGet();
			}
			if (interruptedException && !interruptible) {
				violation(owner + " was not interruptible, but its acquisition threw InterruptedException");
			}
			if (interruptedException && !interruptSent) {
				violation(owner + "'s acquisition threw InterruptedException, but nobody interrupted it");
			}
			if (interruptSent && !interruptedException && !interruptSet) {
				violation(owner + " was interrupted, but its interrupt status was not kept");
			}
			if (!interruptSent && interruptSet) {
				violation(owner + " was not interrupted, but its interrupt status is set");
			}
			if (hold == null && mustGetIt && !interruptedException) {
				violation(owner + "'s wait ended without the lock, though only an interrupt may end it");
			}
			if (hold == null && this.redis.isMarkedBy(KEYS, owner)) {
				violation(owner + " stopped waiting, but its waiter's mark is still on the lock in Redis");
			}
			if (hold != null) {
				holdAndRelease(owner, hold);
			}
			return hold;
		}

		private void holdAndRelease(Owner owner, Hold hold) {
			if (this.holding.incrementAndGet() > 1) {
				violation(owner + " holds the lock together with another owner");
			}
			String holder = this.redis.holder(KEYS);
			if (!hold.redisOwner().id().equals(holder)) {
				violation(owner + " holds the lock (as " + hold.redisOwner() + "), but Redis has it for " + holder);
			}
			this.holding.decrementAndGet();
			try {
				this.engine.release(KEYS, owner);
			}
			catch (RuntimeException ex) {
				violation(owner + "'s release failed: " + ex);
			}
			this.holdingOrReleasing.decrementAndGet();
		}

		Owner owner(int thread) {
			return this.owners[thread];
		}

		int asleep() {
			return this.queues.all().stream().mapToInt((queue) -> queue.asleepOwnerIds().size()).sum();
		}

		private synchronized void violation(String message) {
			this.violations.add(message);
		}

		/** With every operation ended: nothing went wrong, and nothing is left behind. */
		@Validate
		public synchronized void endsAsPromised() {
			if (!this.violations.isEmpty()) {
				throw new AssertionError(String.join("; ", this.violations));
			}
			String holder = this.redis.holder(KEYS);
			if (holder != null) {
				throw new AssertionError("Every owner released the lock, but Redis has it for " + holder);
			}
			for (Owner owner : this.owners) {
				if (this.holds.get(KEYS, owner) != null) {
					throw new AssertionError(owner + " released the lock, but this client still counts its hold");
				}
			}
		}

	}

	/**
	 * The operations of the written scenarios: the other client may also hold the lock
	 * across operations, for the waiters to sleep until it releases it.
	 */
	public static class WithAnotherClient extends Client {

		@Operation
		public void anotherClientTakes() {
			this.redis.takenByAnotherClient(KEYS);
		}

		@Operation
		public void anotherClientReleases() {
			this.redis.releasedByAnotherClient(KEYS);
		}

		/**
		 * The other client releases the lock, which wakes the waiter asleep longest, and
		 * that waiter is interrupted: it must hand its wake-up on.
		 */
		@Operation
		public void anotherClientReleasesAsItsFirstWaiterIsInterrupted() {
			String first = this.queues.all()
				.stream()
				.flatMap((queue) -> queue.asleepOwnerIds().stream())
				.findFirst()
				.orElseThrow();
			this.redis.releasedByAnotherClient(KEYS);
			for (int i = 1; i < THREADS; i++) {
				if (owner(i).id().equals(first)) {
					interrupt(i);
				}
			}
		}

		/**
		 * Waits until so many waiters sleep: for a release that must find them asleep
		 * (while the other client holds the lock, they all go to sleep in the end).
		 */
		@Operation
		public void untilAsleep(@Param(gen = IntGen.class, conf = "1:2") int waiters) {
			while (asleep() < waiters) {
				Thread.onSpinWait();
			}
		}

	}

}
