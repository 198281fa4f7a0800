package io.github.redislock.internal;

import java.util.concurrent.CompletionException;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Takes back what a waiter that leaves without the lock left in Redis (a waiting writer's
 * mark keeps new readers out; a fair lock's place in its queue), for the kinds that
 * {@link LockKind.MarksWaiters mark their waiters}. Sent without waiting for the answer;
 * without one, the mark expires.
 */
final class WaiterWithdrawals {

	private static final Log logger = LogFactory.getLog(WaiterWithdrawals.class);

	private final LockCommands commands;

	WaiterWithdrawals(LockCommands commands) {
		this.commands = commands;
	}

	/**
	 * Withdraws the owner's wait for the lock, if it waited and the lock's kind marks its
	 * waiters.
	 */
	void withdraw(LockKeys keys, Owner owner, Wait wait) {
		if (wait.isNone() || !(keys.kind() instanceof LockKind.MarksWaiters kind)) {
			return;
		}
		try {
			this.commands.withdrawAsync(kind, keys, owner).exceptionally((ex) -> {
				withdrawFailed(ex);
				return null;
			});
		}
		catch (RuntimeException ex) {
			withdrawFailed(ex);
		}
	}

	private static void withdrawFailed(Throwable ex) {
		Throwable cause = (ex instanceof CompletionException && ex.getCause() != null) ? ex.getCause() : ex;
		logger.warn(cause.getMessage() + "; what this waiter, which stopped waiting, left in Redis stays until it "
				+ "expires (a waiting writer's mark, a fair lock's place in the queue: at most a few seconds; an exclusive "
				+ "lock's count of waiters: until the lock is freed, when its release keeps it 20 ms for nobody)");
	}

}
