package io.github.redislock.docs.async;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import io.github.redislock.LockHandle;
import io.github.redislock.ReactiveRedisLockClient;
import io.github.redislock.annotation.DistributedLock;

/** The code of docs/reactive-and-kotlin.md. */
class AsyncSnippets {

	static class AsyncOrderService {

		private final Carrier carrier = new Carrier();

		// tag::completable-future[]
		@DistributedLock(key = "#orderId")
		public CompletableFuture<Receipt> ship(long orderId) {
			// held until the booking completes
			return carrier.bookAsync(orderId).thenApply(Receipt::of);
		}
		// end::completable-future[]

	}

	static class ReactiveOrderService {

		private final Carrier carrier = new Carrier();

		// tag::mono[]
		@DistributedLock(key = "#orderId")
		public Mono<Receipt> ship(long orderId) {
			// held from subscription to completion
			return carrier.book(orderId).map(Receipt::of);
		}
		// end::mono[]

	}

	static void reactiveClient(ReactiveRedisLockClient reactiveLocks, Carrier shipping, Reports reports) {
		// tag::reactive-client[]
		// taken on subscription, released when the action ends or is cancelled
		Mono<Receipt> receipt = reactiveLocks.withLock("order:42", Duration.ofSeconds(3), null,
				shipping.book(42).map(Receipt::of));
		Flux<Row> rows = reactiveLocks.withLock("report", Duration.ZERO, Duration.ofMinutes(5), reports.rows());

		// a handle, for the rare case that needs one: release it yourself
		Mono<LockHandle> handle = reactiveLocks.acquire("order:42", Duration.ofSeconds(3), null);
		// end::reactive-client[]
	}

	static class Carrier {

		CompletableFuture<Booking> bookAsync(long orderId) {
			return CompletableFuture.completedFuture(new Booking(orderId));
		}

		Mono<Booking> book(long orderId) {
			return Mono.just(new Booking(orderId));
		}

	}

	static class Reports {

		Flux<Row> rows() {
			return Flux.empty();
		}

	}

	record Booking(long orderId) {
	}

	record Receipt(long orderId) {

		static Receipt of(Booking booking) {
			return new Receipt(booking.orderId());
		}

	}

	record Row(String text) {
	}

}
