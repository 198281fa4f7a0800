package io.github.redislock.testsupport;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * Waiting for a cluster to reach a state, for the test support itself (tests use
 * Awaitility).
 */
final class Polling {

	private Polling() {
	}

	static void awaitCondition(BooleanSupplier condition, String what) {
		if (!awaitQuietly(condition, 20)) {
			throw new IllegalStateException("Timed out after 20s waiting for " + what);
		}
	}

	static boolean awaitQuietly(BooleanSupplier condition, int seconds) {
		long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
		while (System.nanoTime() < deadline) {
			if (condition.getAsBoolean()) {
				return true;
			}
			sleep(Duration.ofMillis(50));
		}
		return false;
	}

	static void sleep(Duration pause) {
		try {
			Thread.sleep(pause.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
			throw new IllegalStateException(ex);
		}
	}

}
