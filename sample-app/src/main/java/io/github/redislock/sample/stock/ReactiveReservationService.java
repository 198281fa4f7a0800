package io.github.redislock.sample.stock;

import io.github.redislock.LockNotAcquiredException;
import io.github.redislock.annotation.DistributedLock;
import reactor.core.publisher.Mono;

import org.springframework.data.redis.core.ReactiveStringRedisTemplate;
import org.springframework.stereotype.Service;

/**
 * Reserves stock the reactive way: the same rule as {@link ReservationService}, written
 * with Redis' reactive commands, under the same lock. The annotation on a method that
 * returns a {@code Mono} takes the lock when the {@code Mono} is subscribed (no thread
 * waits for it), runs the method under it, and releases it once the {@code Mono}
 * completes, fails or is cancelled; blocking and reactive reservations of one SKU exclude
 * each other, on every instance.
 */
@Service
public class ReactiveReservationService {

	private final ReactiveStringRedisTemplate redis;

	ReactiveReservationService(ReactiveStringRedisTemplate redis) {
		this.redis = redis;
	}

	/**
	 * Reserves units of a SKU while holding lock {@code stock:<sku>}.
	 * @param sku the SKU
	 * @param quantity the units wanted, at least 1
	 * @return emits the reservation; fails with {@link InsufficientStockException} if
	 * fewer units are available, or with {@link LockNotAcquiredException} if another
	 * change to the SKU held the lock for longer than {@code sample.stock.lock-wait}
	 */
	@DistributedLock(name = StockLocks.NAME, key = "#sku", waitTime = "${sample.stock.lock-wait:2s}")
	public Mono<Reservation> reserve(String sku, int quantity) {
		if (quantity < 1) {
			return Mono.error(new IllegalArgumentException("quantity must be at least 1, was " + quantity));
		}
		String key = StockRepository.KEY_PREFIX + sku;
		return this.redis.opsForValue().get(key).map(Integer::parseInt).defaultIfEmpty(0).flatMap((available) -> {
			if (available < quantity) {
				return Mono.error(new InsufficientStockException(sku, quantity, available));
			}
			int remaining = available - quantity;
			return this.redis.opsForValue()
				.set(key, Integer.toString(remaining))
				.thenReturn(new Reservation(sku, quantity, remaining));
		});
	}

}
