package io.github.redislock.internal;

import java.util.function.Supplier;

import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;

import org.jspecify.annotations.Nullable;

/**
 * The observations a client makes, so that traces show locking and, through Micrometer's
 * meter handler, timers measure it: {@value #ACQUIRE} from a thread's first attempt until
 * it holds the lock or gives up, and {@value #HOLD} from a thread's first acquisition of
 * a lock until its last release. Both carry the lock's tag name as {@code name} (low
 * cardinality: see {@link LockKeys#tagName()}) and its kind as {@code mode}
 * ({@link LockKind#mode()}); the Redis key and the fencing token are high-cardinality
 * values, for spans only. The context also carries the lock's whole name under
 * {@value #NAME_ENTRY}, for handlers that must tell {@code order:42} from
 * {@code order:43} or know a name Redis keeps only as a hash (a test's
 * {@code LockRecorder} does), without making every span carry it. With a no-op registry
 * nothing is allocated.
 */
final class LockObservations {

	/** The context entry that holds the lock's name as the application gave it. */
	static final String NAME_ENTRY = "io.github.redislock.name";

	static final String ACQUIRE = "redis.lock.acquire";

	static final String HOLD = "redis.lock.hold";

	private final ObservationRegistry registry;

	LockObservations(ObservationRegistry registry) {
		this.registry = registry;
	}

	Observation startAcquire(LockKeys keys) {
		if (this.registry.isNoop()) {
			return Observation.NOOP;
		}
		String name = keys.tagName();
		return safely(() -> Observation.createNotStarted(ACQUIRE, () -> context(keys), this.registry)
			.contextualName("lock acquire " + name)
			.lowCardinalityKeyValue("name", name)
			.lowCardinalityKeyValue("mode", keys.kind().mode())
			.highCardinalityKeyValue("key", keys.lockKey())
			.start());
	}

	/**
	 * Ends an acquire observation.
	 * @param outcome {@code acquired}, {@code timed-out}, {@code interrupted} or
	 * {@code error}
	 * @param error what went wrong, for the {@code error} outcome
	 */
	static void endAcquire(Observation observation, String outcome, @Nullable Throwable error) {
		safely(() -> {
			observation.lowCardinalityKeyValue("outcome", outcome);
			if (error != null) {
				observation.error(error);
			}
			observation.stop();
			return observation;
		});
	}

	Observation startHold(LockKeys keys, long token, boolean watchdog) {
		if (this.registry.isNoop()) {
			return Observation.NOOP;
		}
		String name = keys.tagName();
		return safely(() -> Observation.createNotStarted(HOLD, () -> context(keys), this.registry)
			.contextualName("lock hold " + name)
			.lowCardinalityKeyValue("name", name)
			.lowCardinalityKeyValue("mode", keys.kind().mode())
			.lowCardinalityKeyValue("lease", watchdog ? "watchdog" : "fixed")
			.highCardinalityKeyValue("key", keys.lockKey())
			.highCardinalityKeyValue("token", Long.toString(token))
			.start());
	}

	private static Observation.Context context(LockKeys keys) {
		Observation.Context context = new Observation.Context();
		context.put(NAME_ENTRY, keys.name());
		return context;
	}

	/**
	 * Runs an observation step so that a failing handler is logged and cannot change the
	 * lock's outcome: a caller told the acquire failed while it holds the lock would
	 * never release it.
	 */
	static Observation safely(Supplier<Observation> step) {
		try {
			return step.get();
		}
		catch (RuntimeException ex) {
			LockLogs.listeners.warn("A lock observation handler failed", ex);
			return Observation.NOOP;
		}
	}

}
