package io.github.redislock.docs.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.math.BigDecimal;
import java.util.List;
import java.util.Optional;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.annotation.IfLeaseLost;
import io.github.redislock.annotation.IfLocked;
import io.github.redislock.annotation.LockFallback;

/** The code of docs/annotation.md. */
class AnnotationSnippets {

	static class Reports {

		// tag::keys[]
		@DistributedLock(name = "order", key = { "#tenant", "#order.id" }) // "order:acme:42"
		public void confirm(String tenant, Order order) {
			// ...
		}

		@DistributedLock(key = "@tenantContext.current") // "Reports.rebuild:acme"
		public void rebuild() {
			// ...
		}
		// end::keys[]

	}

	static class Accounts {

		// tag::several[]
		@DistributedLock(name = "account", key = "#accountIds") // "account:7" and
																// "account:9"
		public void transfer(List<Long> accountIds, BigDecimal amount) {
			// ...
		}
		// end::several[]

	}

	static class Stock {

		// tag::skip[]
		// Optional.empty() at once, without running, when the lock is taken
		@DistributedLock(key = "#sku", waitTime = "0", ifLocked = IfLocked.SKIP)
		public Optional<Reservation> tryReserve(String sku) {
			return Optional.of(new Reservation(sku, false));
		}
		// end::skip[]

		// tag::fallback[]
		@DistributedLock(key = "#sku", fallback = "stockBusy")
		public Reservation reserve(String sku) {
			return new Reservation(sku, false);
		}
		// end::fallback[]

		// tag::lease-lost[]
		@DistributedLock(key = "#paymentId", leaseTime = "30s", ifLeaseLost = IfLeaseLost.THROW)
		public Receipt charge(String paymentId) {
			// throws LeaseExpiredException instead if the lease ran out meanwhile
			return new Receipt(paymentId);
		}
		// end::lease-lost[]

		// tag::lease-lost-interrupt[]
		// Interrupted as soon as the lease is lost (the caller gets
		// LeaseExpiredException):
		// stop at the next blocking call instead of writing on after another holder
		// started
		@DistributedLock(key = "#batchId", ifLeaseLost = IfLeaseLost.INTERRUPT)
		public void importBatch(String batchId, List<String> rows) throws InterruptedException {
			for (String row : rows) {
				if (Thread.interrupted()) {
					throw new InterruptedException("lease of batch " + batchId + " lost");
				}
				// ... write the row
			}
		}
		// end::lease-lost-interrupt[]

	}

	@Configuration(proxyBeanMethods = false)
	static class Fallbacks {

		// tag::fallback-bean[]
		@Bean
		LockFallback stockBusy() {
			return (method, arguments, exception) -> Reservation.busy((String) arguments[0]);
		}
		// end::fallback-bean[]

	}

	// tag::meta[]
	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(name = "invoice", key = "#invoiceId", waitTime = "2s")
	public @interface InvoiceLock {

	}
	// end::meta[]

	record Order(long id) {
	}

	record Reservation(String sku, boolean busy) {

		static Reservation busy(String sku) {
			return new Reservation(sku, true);
		}

	}

	record Receipt(String paymentId) {
	}

}
