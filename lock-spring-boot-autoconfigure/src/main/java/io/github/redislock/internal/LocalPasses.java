package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.util.Assert;

import io.github.redislock.RedisLockException;

/**
 * Passes a lock released by one owner of this client to another owner of it that waits,
 * without freeing it in Redis (see {@link LocalRun}): for the kinds that
 * {@link LockKind.PassesLocally pass locally}, under a watchdog lease. A pass that Redis
 * refuses (another client waits, or the hold was lost) ends as a release, which the
 * engine settles.
 */
final class LocalPasses {

	private static final Log logger = LogFactory.getLog(LocalPasses.class);

	private final LockCommands commands;

	private final Holds holds;

	private final LockObservations observations;

	// consecutive local passes while other clients wait
	private final int maxLocalPasses;

	private final Releases releases;

	LocalPasses(LockCommands commands, Holds holds, LockObservations observations, int maxLocalPasses,
			Releases releases) {
		this.commands = commands;
		this.holds = holds;
		this.observations = observations;
		this.maxLocalPasses = maxLocalPasses;
		this.releases = releases;
	}

	/**
	 * Passes the lock from the hold, at its last release, to the owner of this client
	 * that waits longest for it, when it takes a pass, without freeing it in Redis: asks
	 * Redis nothing while reserved tokens last and the lease was confirmed lately, else
	 * one script, which also gives the lock up when another client waits (see
	 * {@link LocalRun}).
	 * @param mayAskRedis whether the pass may run a command first, when the run's tokens
	 * are spent or its lease was confirmed too long ago; if not, the lock is not passed
	 * then. A kind held by many passes either way: its pass never waits for Redis
	 * @return whether the hold's release is done: passed, or given up for other clients
	 */
	boolean passOn(Hold hold, boolean mayAskRedis) {
		WaitQueue queue = hold.queue();
		if (queue == null || hold.isLost() || !hold.lease().watchdog()) {
			return false;
		}
		LocalRun run = hold.run();
		boolean oneOfMany = hold.keys().kind() instanceof LockKind.PassesOneOfMany;
		if (oneOfMany && !(run.mayPassAgain(this.maxLocalPasses) && run.confirmedLately(hold.lease().millis()))) {
			// its place goes back to Redis, announced to every client's waiters
			return false;
		}
		WaitQueue.Waiter next = queue.takeForPass(hold);
		Owner to = (next != null) ? next.passableOwner() : null;
		if (next == null || to == null) {
			return false;
		}
		if (oneOfMany) {
			return passPlace(hold, queue, next, to);
		}
		long leaseMillis = hold.lease().millis();
		boolean local = run.canPassLocally(leaseMillis);
		if (!local) {
			LockReply ahead = run.continueAhead(mayAskRedis);
			if (ahead instanceof LockReply.Released) {
				queue.othersWaited(true);
			}
			local = ahead instanceof LockReply.Granted && run.canPassLocally(leaseMillis);
		}
		if (!local && !mayAskRedis) {
			queue.notPassed(hold, next);
			return false;
		}
		long token;
		if (local) {
			token = run.takeToken();
		}
		else {
			long sentAt = System.nanoTime();
			long messagesBefore = queue.messages();
			LockReply reply = null;
			RuntimeException failure = null;
			try {
				reply = this.commands.continueRun(hold.keys(), hold.run().grant(), this.maxLocalPasses, hold.lease());
			}
			catch (RuntimeException ex) {
				failure = ex;
			}
			if (!(reply instanceof LockReply.Granted granted)) {
				// Not passed: given up for another client's waiters (who were told),
				// lost,
				// or no answer. This client's waiters ask Redis again; after the others'
				// turn when it was given up.
				if (reply instanceof LockReply.Released) {
					queue.othersWaited(true);
					queue.reservedForOthers(sentAt + TimeUnit.MILLISECONDS.toNanos(this.commands.yieldMillis()),
							messagesBefore);
				}
				queue.passFailed();
				next.wake();
				if (failure != null) {
					throw this.releases.failed(hold, failure);
				}
				// continueRun answered, or it failed
				Assert.state(reply != null, "No reply");
				this.releases.released(hold, reply);
				return true;
			}
			queue.othersWaited(false);
			token = run.continued(granted, sentAt);
		}
		// Asked ahead only while no other client waited lately: when one did, the answer
		// is most likely that one waits again, and the pass that gives the lock up must
		// ask Redis again anyway (one script more per turn of two clients taking turns).
		if (run.spent() && !queue.othersWaited()) {
			run.askedAhead(this.commands.continueRunAhead(hold.keys(), run.grant(), this.maxLocalPasses, hold.lease()),
					System.nanoTime());
		}
		handOver(hold, next, to, token);
		return true;
	}

	/**
	 * Passes one holder's place of a kind held by many (see
	 * {@link LockKind.PassesOneOfMany}) to the waiter: one script, which checks the place
	 * still held and gives the next fencing token, sent without the releasing owner
	 * waiting for it: the waiter is handed the place where the answer arrives, so that
	 * the hand-over costs one round trip and one thread woken, not two. The release is
	 * done for its owner either way. A place found lost is reported as a lease lost (its
	 * releasing owner cannot be told any more); no answer leaves it to the settlements,
	 * which give it back. The waiter then asks Redis.
	 */
	private boolean passPlace(Hold hold, WaitQueue queue, WaitQueue.Waiter next, Owner to) {
		CompletableFuture<LockReply> reply;
		try {
			reply = this.commands.continueRunAhead(hold.keys(), hold.run().grant(), 1, hold.lease());
		}
		catch (RuntimeException ex) {
			reply = CompletableFuture.failedFuture(ex);
		}
		reply.whenComplete((answer, failure) -> {
			if (answer instanceof LockReply.Granted granted) {
				hold.run().passedWith(granted.fencingToken());
				handOver(hold, next, to, granted.fencingToken());
				return;
			}
			queue.passFailed();
			next.wake();
			try {
				if (failure != null) {
					Throwable cause = RedisFailures.unwrap(failure);
					RuntimeException settled = this.releases.failed(hold, (cause instanceof RuntimeException ex) ? ex
							: new RedisLockException(RedisFailures.message(cause), cause));
					logger.debug("Could not pass lock '" + hold.keys().name() + "'", settled);
				}
				else if (answer != null) {
					this.releases.released(hold, answer);
				}
			}
			catch (RuntimeException lost) {
				// the loss was reported to the lease-lost listeners; nobody calls here
				logger.debug("Could not pass lock '" + hold.keys().name() + "'", lost);
			}
		});
		return true;
	}

	private void handOver(Hold hold, WaitQueue.Waiter next, Owner to, long token) {
		Hold passed = new Hold(hold.keys(), to, token, hold.lease(), this.observations, hold.run());
		this.holds.passed(hold, passed);
		hold.ended(null);
		if (logger.isDebugEnabled()) {
			logger.debug("Passed lock '" + hold.keys().name() + "' to " + to.describe() + " (token " + token + ")");
		}
		next.pass(passed);
	}

	/** How the engine ends a hold that a pass released in Redis instead. */
	interface Releases {

		/** Settles a release whose command failed; returns what to throw. */
		RuntimeException failed(Hold hold, RuntimeException ex);

		/** Ends the hold as the release's reply says. */
		void released(Hold hold, LockReply reply);

	}

}
