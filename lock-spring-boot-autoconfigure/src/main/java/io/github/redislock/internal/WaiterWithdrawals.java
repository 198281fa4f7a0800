package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Takes back what a waiter that leaves without the lock left in Redis (a waiting writer's
 * mark keeps new readers out; a fair lock's place in its queue; a waiter of another
 * client counted on an exclusive lock, which a release keeps the lock for), for the kinds
 * that {@link LockKind.MarksWaiters mark their waiters}. A caller whose wait ended waits
 * for the answer before its call returns, within what is left of its time (the wait plus
 * the command timeout), so that it leaves nothing behind that could refuse anyone; one
 * whose wait failed (Redis unreachable) does not: the mark then expires on its own, or
 * goes with the lock.
 */
final class WaiterWithdrawals {

	private static final Log logger = LogFactory.getLog(WaiterWithdrawals.class);

	private final LockCommands commands;

	private final long commandTimeoutNanos;

	WaiterWithdrawals(LockCommands commands) {
		this.commands = commands;
		this.commandTimeoutNanos = TimeUnit.MILLISECONDS.toNanos(commands.timeoutMillis());
	}

	/**
	 * Withdraws the owner's wait for the lock, if it waited and the lock's kind marks its
	 * waiters, without waiting for the answer.
	 * @return completes (never exceptionally) once Redis answered or the command failed
	 */
	CompletableFuture<?> withdraw(LockKeys keys, Owner owner, Wait wait) {
		if (wait.isNone() || !(keys.kind() instanceof LockKind.MarksWaiters kind)) {
			return CompletableFuture.completedFuture(null);
		}
		try {
			return this.commands.withdrawAsync(kind, keys, owner).exceptionally((ex) -> {
				withdrawFailed(keys, ex);
				return null;
			});
		}
		catch (RuntimeException ex) {
			withdrawFailed(keys, ex);
			return CompletableFuture.completedFuture(null);
		}
	}

	/**
	 * Withdraws the owner's wait as {@link #withdraw} does, and waits for the answer
	 * until the acquisition's time is up: its wait from {@code start}, plus the command
	 * timeout (see {@link LockCommands#withdraw}). Not interruptible; an interrupt that
	 * comes meanwhile stays set. With no time left, the withdrawal is sent all the same,
	 * without waiting.
	 * @param start when the acquisition began, from {@link System#nanoTime()}
	 */
	void withdrawAndAwait(LockKeys keys, Owner owner, Wait wait, long start) {
		if (wait.isNone() || !(keys.kind() instanceof LockKind.MarksWaiters kind)) {
			return;
		}
		long budget = wait.budgetNanos(start, this.commandTimeoutNanos);
		if (budget <= 0) {
			// a call without time would be given up before it is sent
			withdraw(keys, owner, wait);
			return;
		}
		try {
			this.commands.withdraw(kind, keys, owner, budget);
		}
		catch (RuntimeException ex) {
			withdrawFailed(keys, ex);
		}
	}

	private static void withdrawFailed(LockKeys keys, Throwable ex) {
		Throwable cause = RedisFailures.unwrap(ex);
		String message = "Could not take back what a waiter of lock '" + keys.name() + "' left in Redis when it "
				+ "stopped waiting (it goes on its own: a waiting writer's mark and a fair lock's place within seconds, "
				+ "a count of waiters with the lock): " + cause.getMessage();
		// Redis refusing the script (an ACL without one of its commands) or out of reach
		// is told once by RedisAvailability, not again per waiter
		if (logger.isDebugEnabled()) {
			logger.debug(message);
		}
	}

}
