package io.github.redislock.internal;

import java.util.function.Consumer;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import io.github.redislock.LeaseLostEvent;

/**
 * Hands lease-lost events to the application's listener; a listener that throws is
 * logged, never allowed to break the watchdog or the unlock that found the loss.
 */
final class LeaseLostNotifier {

	private static final Log logger = LogFactory.getLog(LeaseLostNotifier.class);

	private final Consumer<LeaseLostEvent> listener;

	LeaseLostNotifier(Consumer<LeaseLostEvent> listener) {
		this.listener = listener;
	}

	void notify(LeaseLostEvent event) {
		try {
			this.listener.accept(event);
		}
		catch (RuntimeException ex) {
			logger.warn("The lease-lost listener failed for lock '" + event.lockName() + "'", ex);
		}
	}

}
