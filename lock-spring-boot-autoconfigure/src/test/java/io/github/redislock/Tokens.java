package io.github.redislock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.github.redislock.internal.LockType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fencing tokens of a run of acquisitions of one name, each released before the next,
 * in the order they were taken.
 */
record Tokens(LockType type, List<Long> values) {

	private static final Duration WAIT = Duration.ofSeconds(10);

	/** Takes the lock of the name {@code count} times, one after the other. */
	static Tokens take(RedisLockClient client, LockType type, String name, int count) {
		List<Long> values = new ArrayList<>();
		for (int i = 0; i < count; i++) {
			values.add(takeOne(client, type, name));
		}
		return new Tokens(type, List.copyOf(values));
	}

	/** Takes the lock of the name once, releases it and returns its token. */
	static long takeOne(RedisLockClient client, LockType type, String name) {
		try (LockHandle handle = type.tryAcquire(client, name, WAIT, null)
			.orElseThrow(() -> new AssertionError("Lock '" + name + "' not acquired within " + WAIT))) {
			return handle.fencingToken();
		}
	}

	long last() {
		return this.values.get(this.values.size() - 1);
	}

	/**
	 * Asserts that every token is above {@code earlier}, and that they increase:
	 * strictly, except a reader's, which is its read phase's and may equal the one before
	 * when no write came between (see docs/fencing.md).
	 */
	void assertAbove(long earlier) {
		assertThat(this.values).as("%s tokens after %d", this.type, earlier).allMatch((token) -> token > earlier);
		for (int i = 1; i < this.values.size(); i++) {
			if (this.type == LockType.READ) {
				assertThat(this.values.get(i)).as("%s tokens %s", this.type, this.values)
					.isGreaterThanOrEqualTo(this.values.get(i - 1));
			}
			else {
				assertThat(this.values.get(i)).as("%s tokens %s", this.type, this.values)
					.isGreaterThan(this.values.get(i - 1));
			}
		}
	}

}
