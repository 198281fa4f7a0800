package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import org.jspecify.annotations.Nullable;

/**
 * Records the locks the application under test acquires and releases, by name, so that a
 * test can check that a method ran under its lock. A bean in every context of an
 * {@link AutoConfigureTestRedis} test; inject it:
 *
 * <pre class="code">
 * &#64;Autowired
 * LockRecorder locks;
 *
 * &#64;Test
 * void shipsUnderTheOrdersLock() {
 *     locks.assertHeldDuring("OrderService.ship:42", () -&gt; orders.ship(42));
 * }
 * </pre>
 *
 * Inside a collaborator the test stubs, {@link #isHeld(String)} tells whether the lock is
 * held at that moment.
 *
 * <p>
 * It records what the auto-configured {@code RedisLockClient} reports through its
 * {@code redis.lock.hold} observations: of every kind (locks, read/write and fair locks,
 * semaphore permits), taken by the annotation, the client or a handle, from each holder's
 * first acquisition until its last release (re-entries are not recorded again). The
 * application's {@code ObservationRegistry} is used when it has one; else the context
 * gets one for the recorder. Locks held by other processes are not recorded. After each
 * test method the recording starts afresh.
 *
 * <p>
 * Thread-safe.
 *
 * @since 0.1.0
 */
public final class LockRecorder {

	static final String HOLD_OBSERVATION = "redis.lock.hold";

	// the context entry in which the client puts the lock's name as the application gave
	// it (the Redis key may hold only its hash)
	static final String NAME_ENTRY = "io.github.redislock.name";

	private final List<Event> events = new ArrayList<>();

	private final Map<String, Integer> holdsByName = new HashMap<>();

	/** Made by {@link AutoConfigureTestRedis}, which feeds it. */
	LockRecorder() {
	}

	/**
	 * Everything recorded since the last test method began, in order.
	 * @return a copy
	 */
	public synchronized List<Event> events() {
		return List.copyOf(this.events);
	}

	/**
	 * The names of the locks acquired since the last test method began, in the order they
	 * were acquired, once per acquisition.
	 * @return a copy
	 */
	public synchronized List<String> acquired() {
		return this.events.stream().filter((event) -> event.type() == Type.ACQUIRED).map(Event::name).toList();
	}

	/**
	 * Whether a thread or handle of the application holds the named lock now (or a permit
	 * of the named semaphore).
	 * @param name the lock's name, as the application gives it ({@code order:42}, or
	 * {@code OrderService.ship:42} for {@code @DistributedLock(key = "#orderId")} on
	 * {@code OrderService.ship(long)})
	 * @return whether it is held
	 */
	public synchronized boolean isHeld(String name) {
		return this.holdsByName.getOrDefault(name, 0) > 0;
	}

	/**
	 * Runs the call and checks that the named lock was held by the application at some
	 * moment of it: already held when it began, or acquired during it.
	 * @param name the lock's name
	 * @param call what should run under the lock, e.g. {@code () -> orders.ship(42)}
	 * @param <T> what the call returns
	 * @return what the call returned
	 * @throws AssertionError if the lock was not held during the call; it names the locks
	 * that were acquired instead
	 */
	public <T extends @Nullable Object> T assertHeldDuring(String name, Supplier<T> call) {
		boolean heldBefore;
		int from;
		synchronized (this) {
			heldBefore = isHeld(name);
			from = this.events.size();
		}
		T result = call.get();
		if (!heldBefore) {
			List<Event> during;
			synchronized (this) {
				during = List.copyOf(this.events.subList(Math.min(from, this.events.size()), this.events.size()));
			}
			boolean acquired = during.stream()
				.anyMatch((event) -> event.type() == Type.ACQUIRED && event.name().equals(name));
			if (!acquired) {
				List<String> others = during.stream()
					.filter((event) -> event.type() == Type.ACQUIRED)
					.map(Event::name)
					.toList();
				throw new AssertionError("Lock '" + name + "' was not held during the call; " + (others.isEmpty()
						? "the application acquired no lock then" : "the application acquired " + others + " then"));
			}
		}
		return result;
	}

	/**
	 * Runs the call and checks that the named lock was held at some moment of it; see
	 * {@link #assertHeldDuring(String, Supplier)}.
	 * @param name the lock's name
	 * @param call what should run under the lock
	 * @throws AssertionError if the lock was not held during the call
	 */
	public void assertHeldDuring(String name, Runnable call) {
		this.<@Nullable Object>assertHeldDuring(name, () -> {
			call.run();
			return null;
		});
	}

	/**
	 * Forgets what was recorded; locks held now stay {@link #isHeld(String) held}. Done
	 * after each test method.
	 */
	public synchronized void clear() {
		this.events.clear();
	}

	/** The handler that feeds the recorder from the client's hold observations. */
	ObservationHandler<Observation.Context> handler() {
		return new ObservationHandler<>() {

			@Override
			public boolean supportsContext(Observation.Context context) {
				return HOLD_OBSERVATION.equals(context.getName());
			}

			@Override
			public void onStart(Observation.Context context) {
				record(Type.ACQUIRED, context);
			}

			@Override
			public void onStop(Observation.Context context) {
				record(Type.RELEASED, context);
			}

		};
	}

	private void record(Type type, Observation.Context context) {
		KeyValue key = context.getHighCardinalityKeyValue("key");
		KeyValue mode = context.getLowCardinalityKeyValue("mode");
		Object name = context.get(NAME_ENTRY);
		if (key == null || !(name instanceof String)) {
			return;
		}
		Event event = new Event(type, (String) name, (mode != null) ? mode.getValue() : "", key.getValue());
		synchronized (this) {
			int holds = this.holdsByName.getOrDefault(event.name(), 0) + ((type == Type.ACQUIRED) ? 1 : -1);
			if (holds > 0) {
				this.holdsByName.put(event.name(), holds);
			}
			else {
				this.holdsByName.remove(event.name());
			}
			this.events.add(event);
		}
	}

	/**
	 * What happened to a lock.
	 *
	 * @param type acquired or released
	 * @param name the lock's name, as the application gave it
	 * @param mode the lock's kind: {@code exclusive}, {@code read}, {@code write},
	 * {@code fair} or {@code semaphore}
	 * @param key the lock's Redis key
	 * @since 0.1.0
	 */
	public record Event(Type type, String name, String mode, String key) {

	}

	/**
	 * Whether a lock was acquired or released.
	 *
	 * @since 0.1.0
	 */
	public enum Type {

		/** A holder's first acquisition of the lock. */
		ACQUIRED,

		/** A holder's last release of the lock, or the end of its hold otherwise. */
		RELEASED

	}

}
