package io.github.redislock.internal;

import java.util.List;
import java.util.function.Consumer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.observation.DefaultMeterObservationHandler;
import io.micrometer.observation.ObservationRegistry;

import io.github.redislock.LeaseLostEvent;

/**
 * The meters a client registers itself, besides the timers its observations make: gauges
 * of the locks its threads hold and of its waiting threads, and a counter of lost leases.
 * Only loaded when the application gives the client a {@link MeterRegistry}, so
 * Micrometer stays optional.
 */
final class LockMeters {

	static final String HELD = "redis.lock.held";

	static final String WAITING = "redis.lock.waiting";

	static final String LEASE_LOST = "redis.lock.lease.lost";

	private final MeterRegistry registry;

	private final List<Meter> gauges;

	LockMeters(MeterRegistry registry, ClientInspection inspection) {
		this.registry = registry;
		this.gauges = List.of(
				Gauge.builder(HELD, inspection, ClientInspection::heldCount)
					.description("Locks the threads and handles of this instance hold now")
					.register(registry),
				Gauge.builder(WAITING, inspection, ClientInspection::waitingCount)
					.description("Callers of this instance waiting for a lock now")
					.register(registry));
	}

	/** Counts a lost lease, tagged with the lock's tag name and what found the loss. */
	static Consumer<LeaseLostEvent> leaseLostCounter(MeterRegistry registry) {
		return (event) -> Counter.builder(LEASE_LOST)
			.description("Leases found lost: the lock was no longer held by the thread that held it")
			.tag("name", LockKeys.tagName(event.lockName()))
			.tag("detected.by", event.detectedBy().name().toLowerCase())
			.register(registry)
			.increment();
	}

	/**
	 * An observation registry that only turns observations into timers, for a client
	 * given a meter registry and no observation registry.
	 */
	static ObservationRegistry timersOnly(MeterRegistry registry) {
		ObservationRegistry observationRegistry = ObservationRegistry.create();
		observationRegistry.observationConfig().observationHandler(new DefaultMeterObservationHandler(registry));
		return observationRegistry;
	}

	/** Removes the gauges, whose values end with the client. */
	void close() {
		this.gauges.forEach(this.registry::remove);
	}

}
