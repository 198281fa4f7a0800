package io.github.redislock.internal;

import java.util.List;
import java.util.function.Consumer;

import io.github.redislock.LeaseLostEvent;

/**
 * Hands lease-lost events to the application's listener and the lease-lost counter; a
 * listener that throws is logged, never allowed to break the others, the watchdog or the
 * unlock that found the loss.
 */
final class LeaseLostNotifier {

	private final List<Consumer<LeaseLostEvent>> listeners;

	LeaseLostNotifier(List<Consumer<LeaseLostEvent>> listeners) {
		this.listeners = List.copyOf(listeners);
	}

	void notify(LeaseLostEvent event) {
		for (Consumer<LeaseLostEvent> listener : this.listeners) {
			try {
				listener.accept(event);
			}
			catch (RuntimeException | LinkageError | AssertionError ex) {
				LockLogs.listeners.warn("A lease-lost listener failed for lock '" + event.lockName() + "'", ex);
			}
		}
	}

}
