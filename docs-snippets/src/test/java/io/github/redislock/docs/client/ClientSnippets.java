package io.github.redislock.docs.client;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.function.Consumer;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.event.EventListener;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.LeaseLostEvent;
import io.github.redislock.LockHandle;
import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import io.github.redislock.autoconfigure.RedisLockClientBuilderCustomizer;

/** The code of docs/client.md, docs/configuration.md and docs/monitoring.md. */
class ClientSnippets {

	static RedisLockClient build(StringRedisTemplate redisTemplate, Consumer<LeaseLostEvent> alerts,
			ObservationRegistry observationRegistry, MeterRegistry meterRegistry) {
		// tag::builder[]
		RedisLockClient locks = RedisLockClient.builder(redisTemplate)
			.keyPrefix("lock:") // default
			.watchdogTimeout(Duration.ofSeconds(30)) // default
			.commandTimeout(Duration.ofSeconds(2)) // default
			.maxLocalPasses(8) // default
			.leaseLostListener(alerts) // optional
			.observationRegistry(observationRegistry) // optional: spans and timers
			.meterRegistry(meterRegistry) // optional: gauges and the lease-lost counter
			.build();
		// end::builder[]
		return locks;
	}

	static RedisLockClient observed(StringRedisTemplate redisTemplate, ObservationRegistry observationRegistry,
			MeterRegistry meterRegistry) {
		// tag::registries[]
		RedisLockClient locks = RedisLockClient.builder(redisTemplate)
			.observationRegistry(observationRegistry) // spans (timers: see below)
			.meterRegistry(meterRegistry) // gauges and the lease-lost counter
			.build();
		// end::registries[]
		return locks;
	}

	static RedisLockClient replicated(StringRedisTemplate redisTemplate) {
		// tag::replica-acknowledgement[]
		RedisLockClient locks = RedisLockClient.builder(redisTemplate)
			.replicaAcknowledgement(1, Duration.ofMillis(100)) // 1 replica, 100 ms
			.build();
		// end::replica-acknowledgement[]
		return locks;
	}

	static Receipt withLock(RedisLockClient locks, Shipping shipping) {
		// tag::with-lock[]
		// Wait 3 s at most; null: the watchdog's lease; released even if it throws.
		Receipt receipt = locks.withLock("order:42", Duration.ofSeconds(3), null, () -> shipping.ship(42));
		// end::with-lock[]
		return receipt;
	}

	static void lock(RedisLockClient locks, Store store, Order order) throws InterruptedException {
		// tag::lock[]
		RedisLock lock = locks.getLock("order:42"); // a java.util.concurrent.locks.Lock
		// wait 3 s at most; a lease of 10 s
		if (lock.tryLock(Duration.ofSeconds(3), Duration.ofSeconds(10))) {
			try {
				store.save(order, lock.fencingToken());
			}
			finally {
				lock.unlock();
			}
		}
		// end::lock[]
	}

	static void handles(RedisLockClient locks, Store store, Order order, Shipping shipping) {
		// tag::handles[]
		// wait 3 s at most; the watchdog renews the lease
		try (LockHandle lock = locks.acquire("order:42", Duration.ofSeconds(3), null)) {
			store.save(order, lock.fencingToken());
		} // close() = release()

		Optional<LockHandle> maybe = locks.tryAcquire("report", Duration.ZERO, Duration.ofMinutes(5));

		// No thread waits: the future completes when a release message (or the holder's
		// lease end) lets it in.
		CompletableFuture<LockHandle> later = locks.acquireAsync("order:42", Duration.ofSeconds(30), null);
		later.cancel(false); // withdraws it: nothing stays held, queued or subscribed

		// Holds the lock until the returned stage completes (normally, exceptionally or
		// cancelled).
		CompletableFuture<Receipt> receipt = locks.withLockAsync("order:42", Duration.ofSeconds(3), null,
				() -> shipping.shipAsync(42));
		// end::handles[]
	}

	static void leaseLost(RedisLockClient locks, ExecutorService executor, Runnable buildReport) throws Exception {
		// tag::lease-lost-stage[]
		try (LockHandle lock = locks.acquire("report", Duration.ofSeconds(3), null)) {
			Future<?> work = executor.submit(buildReport);
			// completes when a renewal finds the lock gone, or before the lease could end
			// with no renewal confirmed (Redis stalled, network parted, this JVM paused)
			lock.leaseLost().thenRun(() -> work.cancel(true));
			work.get();
		}
		// end::lease-lost-stage[]
	}

	static class LeaseLostAlerts {

		private final Consumer<String> alerts = System.err::println;

		// tag::lease-lost-listener[]
		@EventListener
		void onLeaseLost(LeaseLostEvent event) {
			alerts.accept("lock " + event.lockName() + " lost after " + event.heldFor());
		}
		// end::lease-lost-listener[]

	}

	@Configuration(proxyBeanMethods = false)
	static class Customizing {

		// tag::customizer[]
		@Bean
		RedisLockClientBuilderCustomizer lockClientCustomizer() {
			// applied after the redis-lock.* properties
			return (builder) -> builder.maxLocalPasses(4);
		}
		// end::customizer[]

	}

	interface Shipping {

		Receipt ship(long orderId);

		CompletableFuture<Receipt> shipAsync(long orderId);

	}

	interface Store {

		void save(Order order, long fencingToken);

	}

	record Order(long id) {
	}

	record Receipt(long orderId) {
	}

}
