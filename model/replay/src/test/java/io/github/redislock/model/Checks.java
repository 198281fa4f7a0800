package io.github.redislock.model;

import java.util.Objects;

/**
 * The replays' comparisons and their failure messages, each naming where (the trace, the
 * step and its arguments) and what differs; and the replays' time scale.
 */
final class Checks {

	/** Real milliseconds per model millisecond. */
	static final long SCALE = 10_000;

	/** How far below the model's a remaining time may be, in real milliseconds. */
	static final long MARGIN = SCALE / 2;

	private Checks() {
	}

	static void check(String where, boolean condition, String message, Object... args) {
		if (!condition) {
			throw new AssertionError(where + ": " + message.formatted(args));
		}
	}

	static void same(String where, String what, Object expected, Object actual) {
		check(where, Objects.equals(expected, actual), "%s %s, the model's %s", what, actual, expected);
	}

	/** A remaining time: at most the model's, less at most {@link #MARGIN}. */
	static void checkLease(String where, String what, long modelMillis, long realMillis) {
		long high = modelMillis * SCALE;
		check(where, realMillis <= high && realMillis > high - MARGIN,
				"%s is %d ms, the model's %d (%d ms real, less at most %d)", what, realMillis, modelMillis, high,
				MARGIN);
	}

	/**
	 * An absolute time, as what is left of it: the model's, or passed when the model's
	 * has.
	 */
	static void checkTime(String where, String what, long modelLeft, long realLeft) {
		if (modelLeft > 0) {
			checkLease(where, what + " (minus TIME)", modelLeft, realLeft);
		}
		else {
			check(where, realLeft <= 0, "%s is %d ms ahead, the model's has passed", what, realLeft);
		}
	}

	/** A model time as the real milliseconds a script is passed. */
	static String ms(long modelMillis) {
		return Long.toString(modelMillis * SCALE);
	}

	static String flag(boolean value) {
		return value ? "1" : "0";
	}

}
