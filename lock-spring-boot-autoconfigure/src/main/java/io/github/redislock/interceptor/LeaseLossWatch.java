package io.github.redislock.interceptor;

import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import io.github.redislock.LeaseExpiredException;
import io.github.redislock.LeaseLostEvent;

import org.jspecify.annotations.Nullable;

/**
 * Stops a locked call's work when one of its leases is lost
 * ({@link io.github.redislock.annotation.IfLeaseLost#INTERRUPT}): runs the stop once, and
 * only until the call is done, so that an interrupt never reaches a thread that has moved
 * on to other work.
 */
final class LeaseLossWatch {

	private final Consumer<LeaseLostEvent> stop;

	// guarded by this
	private boolean done;

	@Nullable private LeaseLostEvent lost;

	private LeaseLossWatch(Consumer<LeaseLostEvent> stop) {
		this.stop = stop;
	}

	/**
	 * Watches the leases; the first loss found runs {@code stop}, unless the call is
	 * {@linkplain #end() done} by then.
	 */
	static LeaseLossWatch start(List<CompletionStage<LeaseLostEvent>> losses, Consumer<LeaseLostEvent> stop) {
		LeaseLossWatch watch = new LeaseLossWatch(stop);
		for (CompletionStage<LeaseLostEvent> loss : losses) {
			loss.thenAccept(watch::lost);
		}
		return watch;
	}

	/** Interrupts the calling thread when a lease is lost. */
	static LeaseLossWatch interrupting(List<CompletionStage<LeaseLostEvent>> losses) {
		Thread thread = Thread.currentThread();
		return start(losses, (event) -> thread.interrupt());
	}

	private synchronized void lost(LeaseLostEvent event) {
		if (!this.done && this.lost == null) {
			this.lost = event;
			this.stop.accept(event);
		}
	}

	/**
	 * Ends the watch: no stop runs from now on.
	 * @return the loss that stopped the call, or {@code null} if none did
	 */
	synchronized @Nullable LeaseLostEvent end() {
		this.done = true;
		return this.lost;
	}

	/**
	 * Ends the watch of {@link #interrupting}, on the interrupted thread: clears the
	 * interrupt the watch caused, so that it does not reach the caller's next blocking
	 * call.
	 * @return the loss that interrupted the call, or {@code null} if none did
	 */
	synchronized @Nullable LeaseLostEvent endInterrupting() {
		LeaseLostEvent event = end();
		if (event != null) {
			Thread.interrupted();
		}
		return event;
	}

	/**
	 * What the caller of a call stopped this way gets.
	 * @param method the locked method, for the message
	 * @param failure what the call ended with, if it failed: the cause
	 */
	static LeaseExpiredException stopped(LeaseLostEvent event, String method, @Nullable Throwable failure) {
		LeaseExpiredException expired = new LeaseExpiredException(event.lockName(),
				"The lease of lock '" + event.lockName() + "' (key '" + event.lockKey() + "') was lost while " + method
						+ " ran (found by " + event.detectedBy() + " after " + event.heldFor().toMillis() + " ms), so "
						+ method
						+ " was stopped (ifLeaseLost = INTERRUPT): another holder may take the lock now. What it wrote "
						+ "before stays written; guard such writes with the lock's fencing token.");
		if (failure != null) {
			expired.initCause(failure);
		}
		return expired;
	}

}
