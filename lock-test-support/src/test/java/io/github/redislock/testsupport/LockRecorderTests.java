package io.github.redislock.testsupport;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * The recorder reads the {@code redis.lock.hold} observations as the lock client makes
 * them (name and kind as low-cardinality values, the Redis key as a high-cardinality
 * one), and knows a lock by the name the application gives it, also one Redis knows only
 * by its hash.
 */
class LockRecorderTests {

	private final LockRecorder recorder = new LockRecorder();

	private final ObservationRegistry registry = ObservationRegistry.create();

	LockRecorderTests() {
		this.registry.observationConfig().observationHandler(this.recorder.handler());
	}

	@Test
	void recordsAcquisitionsAndReleasesByName() {
		Observation order = hold("lock:{order:42}", "exclusive");
		Observation export = hold("lock:{export}:sem", "semaphore");
		assertThat(this.recorder.isHeld("order:42")).isTrue();
		assertThat(this.recorder.isHeld("export")).isTrue();
		order.stop();
		assertThat(this.recorder.isHeld("order:42")).isFalse();
		assertThat(this.recorder.isHeld("export")).isTrue();
		export.stop();
		assertThat(this.recorder.acquired()).containsExactly("order:42", "export");
		assertThat(this.recorder.events()).extracting(LockRecorder.Event::type, LockRecorder.Event::name)
			.containsExactly(tuple(LockRecorder.Type.ACQUIRED, "order:42"), tuple(LockRecorder.Type.ACQUIRED, "export"),
					tuple(LockRecorder.Type.RELEASED, "order:42"), tuple(LockRecorder.Type.RELEASED, "export"));
	}

	@Test
	void aLockIsHeldUntilItsLastHolderReleasesIt() {
		Observation first = hold("lock:{report}:rw", "read");
		Observation second = hold("lock:{report}:rw", "read");
		first.stop();
		assertThat(this.recorder.isHeld("report")).isTrue();
		second.stop();
		assertThat(this.recorder.isHeld("report")).isFalse();
	}

	@Test
	void assertHeldDuringPassesWhenTheCallTookTheLock() {
		String result = this.recorder.assertHeldDuring("order:42", () -> {
			hold("lock:{order:42}", "exclusive").stop();
			return "shipped";
		});
		assertThat(result).isEqualTo("shipped");
	}

	@Test
	void assertHeldDuringPassesWhenTheLockWasHeldAlready() {
		Observation held = hold("lock:{order:42}", "exclusive");
		this.recorder.assertHeldDuring("order:42", () -> {
		});
		held.stop();
	}

	@Test
	void assertHeldDuringFailsNamingTheLocksTakenInstead() {
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(
					() -> this.recorder.assertHeldDuring("order:42", () -> hold("lock:{order:7}", "exclusive").stop()))
			.withMessage("Lock 'order:42' was not held during the call; the application acquired [order:7] then");
		assertThatExceptionOfType(AssertionError.class)
			.isThrownBy(() -> this.recorder.assertHeldDuring("order:42", () -> {
			}))
			.withMessage("Lock 'order:42' was not held during the call; the application acquired no lock then");
	}

	@Test
	void knowsLongNamesWhichRedisKnowsByTheirHash() {
		String name = "job:" + "x".repeat(1100);
		Observation held = hold(name, "lock:{{q0Rk}", "exclusive");
		assertThat(this.recorder.isHeld(name)).isTrue();
		assertThat(this.recorder.isHeld("lock:{{q0Rk}")).isFalse();
		assertThat(this.recorder.acquired()).containsExactly(name);
		held.stop();
		assertThat(this.recorder.isHeld(name)).isFalse();
	}

	@Test
	void clearForgetsTheEventsButNotWhatIsHeld() {
		Observation held = hold("lock:{order:42}", "exclusive");
		this.recorder.clear();
		assertThat(this.recorder.events()).isEmpty();
		assertThat(this.recorder.isHeld("order:42")).isTrue();
		held.stop();
	}

	private Observation hold(String key, String mode) {
		return hold(key.substring(key.indexOf('{') + 1, key.indexOf('}')), key, mode);
	}

	// as the client makes it: the whole name in the context, its part before ':' as a
	// tag, the key as a high-cardinality value
	private Observation hold(String name, String key, String mode) {
		Observation.Context context = new Observation.Context();
		context.put(LockRecorder.NAME_ENTRY, name);
		int colon = name.indexOf(':');
		return Observation.createNotStarted(LockRecorder.HOLD_OBSERVATION, () -> context, this.registry)
			.lowCardinalityKeyValue("name", (colon > 0) ? name.substring(0, colon) : name)
			.lowCardinalityKeyValue("mode", mode)
			.highCardinalityKeyValue("key", key)
			.start();
	}

	private static org.assertj.core.groups.Tuple tuple(Object... values) {
		return org.assertj.core.groups.Tuple.tuple(values);
	}

}
