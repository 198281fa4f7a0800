package io.github.redislock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

/**
 * Beans whose methods run a callback from the test while their locks are held, so the
 * test can look at the locks from inside.
 */
final class LockedServices {

	private LockedServices() {
	}

	static class OrderService {

		private final AtomicInteger calls = new AtomicInteger();

		// a method, not the field: the bean is a class-based proxy whose own fields are
		// unused
		public int calls() {
			return this.calls.get();
		}

		private final String region = "eu";

		public String getRegion() {
			return this.region;
		}

		@DistributedLock(key = "#orderId")
		public <T> T byName(String orderId, Supplier<T> inside) {
			this.calls.incrementAndGet();
			return inside.get();
		}

		@DistributedLock(key = "#p0")
		public <T> T byP0(String orderId, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(key = "#a0")
		public <T> T byA0(String orderId, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(
				key = { "#root.methodName", "#root.args[0]", "#root.target.region", "#root.targetClass.simpleName" })
		public <T> T byRoot(String orderId, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(key = "@tenantContext.current")
		public <T> T byBean(Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(name = "order", key = { "#tenant", "#orderId" })
		public <T> T composite(String tenant, long orderId, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(name = "accounts", key = "#accountIds")
		public <T> T collection(List<String> accountIds, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(name = "accounts", key = "#accountIds")
		public <T> T array(String[] accountIds, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(name = "pair", key = { "#tenant", "#ids" }, waitTime = "10s")
		public <T> T tenantAndCollection(String tenant, List<String> ids, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock
		public <T> T wholeMethod(Supplier<T> inside) {
			return inside.get();
		}

	}

	static class SkippingService {

		private final AtomicInteger calls = new AtomicInteger();

		// a method, not the field: the bean is a class-based proxy whose own fields are
		// unused
		public int calls() {
			return this.calls.get();
		}

		@DistributedLock(name = "skip", key = "#id", waitTime = "0", ifLocked = IfLocked.SKIP)
		public String skipToNull(String id) {
			this.calls.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "skip", key = "#id", waitTime = "0", ifLocked = IfLocked.SKIP)
		public Optional<String> skipToEmpty(String id) {
			this.calls.incrementAndGet();
			return Optional.of("ran");
		}

		@DistributedLock(name = "skip", key = "#id", waitTime = "${test.lock.wait:50ms}")
		public String throwing(String id) {
			this.calls.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "skip", key = "#id", waitTime = "0", fallback = "busyFallback")
		public String withFallback(String id) {
			this.calls.incrementAndGet();
			return "ran";
		}

		@DistributedLock(name = "lease", key = "#id", leaseTime = "${test.lock.lease}")
		public <T> T withLease(String id, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(name = "short", key = "#id", leaseTime = "200ms")
		public <T> T withShortLease(String id, Supplier<T> inside) {
			return inside.get();
		}

		@DistributedLock(name = "short", key = "#id", leaseTime = "200ms", ifLeaseLost = IfLeaseLost.THROW)
		public <T> T failingOnLostLease(String id, Supplier<T> inside) {
			this.calls.incrementAndGet();
			return inside.get();
		}

	}

	static class ReentrantService {

		private final InnerService inner;

		ReentrantService(InnerService inner) {
			this.inner = inner;
		}

		@DistributedLock(name = "account", key = "#id")
		public <T> T outer(String id, Supplier<T> inside) {
			return this.inner.inner(id, inside);
		}

	}

	static class InnerService {

		@DistributedLock(name = "account", key = "#id")
		public <T> T inner(String id, Supplier<T> inside) {
			return inside.get();
		}

	}

	interface Shipping {

		@DistributedLock(name = "shipping", key = "#parcel")
		<T> T ship(String parcel, Supplier<T> inside);

	}

	static class DefaultShipping implements Shipping {

		@Override
		public <T> T ship(String parcel, Supplier<T> inside) {
			return inside.get();
		}

	}

	abstract static class BaseBilling {

		@DistributedLock(name = "billing", key = "#invoice")
		public abstract <T> T bill(String invoice, Supplier<T> inside);

	}

	static class Billing extends BaseBilling {

		@Override
		public <T> T bill(String invoice, Supplier<T> inside) {
			return inside.get();
		}

	}

	@Target(ElementType.METHOD)
	@Retention(RetentionPolicy.RUNTIME)
	@DistributedLock(name = "audit", key = "#entry", waitTime = "1s")
	@interface AuditLock {

	}

	static class Audit {

		@AuditLock
		public <T> T record(String entry, Supplier<T> inside) {
			return inside.get();
		}

	}

	static class TenantContext {

		private final String current;

		TenantContext(String current) {
			this.current = current;
		}

		public String getCurrent() {
			return this.current;
		}

	}

}
