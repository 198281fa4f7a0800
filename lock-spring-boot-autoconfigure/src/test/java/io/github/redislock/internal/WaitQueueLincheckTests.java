package io.github.redislock.internal;

import java.util.List;

import static io.github.redislock.internal.LincheckRuns.call;

import org.jetbrains.lincheck.datastructures.Operation;
import org.jetbrains.lincheck.datastructures.Param;
import org.jetbrains.lincheck.datastructures.ThreadIdGen;
import org.jetbrains.lincheck.datastructures.Validate;
import org.jetbrains.kotlinx.lincheck.execution.ExecutionScenario;
import org.junit.jupiter.api.Test;

/**
 * Every interleaving of this client's waiters on one {@link WaitQueue} with the release
 * messages that wake them: no release is lost, neither one that comes between a waiter's
 * attempt and its sleep (the queue keeps it for the next sleeper; a reader's sleep
 * compares {@code messagesBefore}), nor one that chose a waiter which gives up at the
 * same moment (that waiter hands the wake-up on).
 *
 * <p>
 * Each Lincheck thread is one waiter, which goes round the protocol of the acquirers: an
 * attempt begins (and reads {@link WaitQueue#messages()}), finds the lock taken and
 * sleeps; it is woken and tries again, or gives up (its time is up, or it was cancelled).
 * Any thread may deliver a release message. After each run, with every operation done, a
 * waiter still asleep after a release that came since its attempt began is a lost
 * wake-up, unless another waiter was woken by it and will try (for a read lock, every
 * reader must try again).
 *
 * <p>
 * No sequential model: a release counts the message and wakes in two steps, so a waiter
 * whose attempt began between them is woken too (one attempt more, which is harmless),
 * and no one-step model says who is woken. What must hold is the invariant above.
 */
class WaitQueueLincheckTests {

	@Test
	void anExclusiveLocksReleaseIsNeverLost() {
		LincheckRuns.modelChecking(releaseBetweenAnAttemptAndItsSleep(Exclusive.class), releaseAgainstGiveUp())
			.check(Exclusive.class);
		LincheckRuns.modelChecking().threads(3).actorsPerThread(3).actorsAfter(1).check(Exclusive.class);
	}

	@Test
	void aReadLocksReleaseWakesEveryReaderAlsoOneBetweenItsAttemptAndItsSleep() {
		LincheckRuns.modelChecking(releaseBetweenAnAttemptAndItsSleep(Shared.class)).check(Shared.class);
		LincheckRuns.modelChecking().threads(3).actorsPerThread(3).actorsAfter(1).check(Shared.class);
	}

	@Test
	void underStress() {
		LincheckRuns.stress().threads(3).actorsPerThread(3).check(Exclusive.class);
		LincheckRuns.stress().threads(3).actorsPerThread(3).check(Shared.class);
	}

	// two waiters each begin an attempt and go to sleep while a release comes
	private static ExecutionScenario releaseBetweenAnAttemptAndItsSleep(Class<? extends Waiters> type) {
		return LincheckRuns.scenario(type, List.of(),
				List.of(List.of(call(type, "step", 1), call(type, "step", 1)),
						List.of(call(type, "step", 2), call(type, "step", 2)), List.of(call(type, "release"))),
				List.of());
	}

	// waiter 1 gives up as the release chooses it; waiter 2 sleeps behind it
	private static ExecutionScenario releaseAgainstGiveUp() {
		Class<Exclusive> type = Exclusive.class;
		return LincheckRuns.scenario(type,
				List.of(call(type, "step", 1), call(type, "step", 1), call(type, "step", 2), call(type, "step", 2)),
				List.of(List.of(call(type, "giveUp", 1)), List.of(call(type, "release"))), List.of());
	}

	// Lincheck's thread ids: 0 for the parts before and after the parallel one
	static final int WAITERS = 4;

	enum State {

		/** Not in an attempt. */
		IDLE,

		/** Its attempt began, and it will find the lock taken. */
		TRYING,

		/** In the queue, or chosen by a release. */
		ASLEEP,

		/** It took a wake-up, and tries again at its next step. */
		WOKEN

	}

	/** One waiter, as an acquirer implements {@link WaitQueue.Waiter}. */
	static final class TestWaiter implements WaitQueue.Waiter {

		private final Owner owner;

		private boolean asleep;

		private boolean woken;

		TestWaiter(int id) {
			this.owner = Owner.handle("lincheck", id);
		}

		synchronized void goingToSleep() {
			this.asleep = true;
		}

		@Override
		public synchronized void wake() {
			if (this.asleep) {
				this.asleep = false;
				this.woken = true;
			}
		}

		synchronized boolean takeWakeUp() {
			boolean woken = this.woken;
			this.woken = false;
			return woken;
		}

		synchronized boolean hasWakeUp() {
			return this.woken;
		}

		// as the acquirers end a sleep themselves: false when a wake-up came, or is
		// on its way
		synchronized boolean stopSleeping() {
			boolean asleep = this.asleep;
			this.asleep = false;
			return asleep;
		}

		@Override
		public Owner owner() {
			return this.owner;
		}

	}

	/** The queue of one lock, and its waiters. */
	public abstract static class Waiters {

		private final boolean wakesAll;

		private final WaitQueue queue;

		private final TestWaiter[] waiters = new TestWaiter[WAITERS];

		private final State[] states = new State[WAITERS];

		private final long[] messagesBefore = new long[WAITERS];

		Waiters(LockKind kind) {
			this.wakesAll = kind.wakes() == LockKind.Wakes.ALL;
			this.queue = new WaitQueue(kind.keys("lincheck:", "lock"));
			for (int i = 0; i < WAITERS; i++) {
				this.waiters[i] = new TestWaiter(i);
				this.states[i] = State.IDLE;
			}
		}

		/**
		 * The waiter of this thread takes its next step: begins an attempt, goes to sleep
		 * after it, or takes a wake-up.
		 */
		@Operation
		public void step(@Param(gen = ThreadIdGen.class) int thread) {
			TestWaiter waiter = this.waiters[thread];
			switch (this.states[thread]) {
				case IDLE, WOKEN -> {
					this.messagesBefore[thread] = this.queue.messages();
					this.states[thread] = State.TRYING;
				}
				case TRYING -> {
					waiter.goingToSleep();
					this.states[thread] = State.ASLEEP;
					this.queue.sleep(waiter, this.messagesBefore[thread]);
				}
				case ASLEEP -> {
					if (waiter.takeWakeUp()) {
						this.states[thread] = State.WOKEN;
					}
				}
			}
		}

		/**
		 * The waiter of this thread gives up. One chosen by a release meanwhile, or woken
		 * and not tried yet, hands the wake-up to the next waiter.
		 */
		@Operation
		public void giveUp(@Param(gen = ThreadIdGen.class) int thread) {
			TestWaiter waiter = this.waiters[thread];
			State state = this.states[thread];
			this.states[thread] = State.IDLE;
			if (state == State.ASLEEP && waiter.stopSleeping() && this.queue.remove(waiter)) {
				return;
			}
			if (state == State.ASLEEP || state == State.WOKEN) {
				waiter.takeWakeUp();
				this.queue.wakeOne();
			}
		}

		/** A release message came. */
		@Operation
		public void release() {
			this.queue.released();
		}

		/** The channel was subscribed again after a reconnect. */
		@Operation
		public void missedReleases() {
			this.queue.missedReleases();
		}

		/** With every operation done: nobody sleeps through a release. */
		@Validate
		public void noWakeUpIsLost() {
			long messages = this.queue.messages();
			List<String> asleep = this.queue.asleepOwnerIds();
			for (int i = 0; i < WAITERS; i++) {
				TestWaiter waiter = this.waiters[i];
				if (!asleep.contains(waiter.owner().id()) || this.messagesBefore[i] == messages) {
					continue;
				}
				if (this.wakesAll) {
					throw new AssertionError("Reader " + i + " sleeps through a release message that came after its "
							+ "attempt began (" + messages + " messages, " + this.messagesBefore[i] + " before)");
				}
				if (!anotherWillTry(i, messages)) {
					throw new AssertionError("Waiter " + i + " sleeps through a release message that came after its "
							+ "attempt began, and no other waiter tries after it");
				}
			}
		}

		// woken, or in an attempt that began after the last release message
		private boolean anotherWillTry(int asleep, long messages) {
			for (int i = 0; i < WAITERS; i++) {
				if (i == asleep) {
					continue;
				}
				if (this.states[i] == State.WOKEN || this.waiters[i].hasWakeUp()
						|| (this.states[i] == State.TRYING && this.messagesBefore[i] == messages)) {
					return true;
				}
			}
			return false;
		}

	}

	public static class Exclusive extends Waiters {

		public Exclusive() {
			super(ExclusiveLock.INSTANCE);
		}

	}

	public static class Shared extends Waiters {

		public Shared() {
			super(ReadWriteLocks.READ);
		}

	}

}
