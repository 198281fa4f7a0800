package io.github.redislock.sample.demo;

import io.github.redislock.fencing.RedisFencedValues;
import io.github.redislock.fencing.StaleFencingTokenException;

import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * A stock level that only the newest holder of the SKU's lock can overwrite: the store
 * side of fencing, with the library's {@link RedisFencedValues}. A holder whose lock
 * passed on while it was paused (a GC pause, a stalled VM) still believes it holds the
 * lock when it resumes; its token tells the store otherwise. One hash per SKU,
 * {@code sample:fenced:<sku>}, with the units in {@code value} and the newest token in
 * {@code token}.
 */
final class FencedStock {

	private static final String KEY_PREFIX = "sample:fenced:";

	private final StringRedisTemplate redis;

	private final RedisFencedValues values;

	FencedStock(StringRedisTemplate redis) {
		this.redis = redis;
		this.values = new RedisFencedValues(redis);
	}

	/** Stocks a SKU, as a write no holder made (token 0). */
	void stock(String sku, int units) {
		this.values.set(key(sku), Integer.toString(units), 0);
	}

	int available(String sku) {
		String units = this.values.get(key(sku));
		return (units != null) ? Integer.parseInt(units) : 0;
	}

	/**
	 * Writes the units, unless a writer with a newer token wrote first.
	 * @return whether it was written
	 */
	boolean write(String sku, int units, long fencingToken) {
		try {
			this.values.set(key(sku), Integer.toString(units), fencingToken);
			return true;
		}
		catch (StaleFencingTokenException ex) {
			return false;
		}
	}

	void delete(String sku) {
		this.redis.delete(key(sku));
	}

	private static String key(String sku) {
		return KEY_PREFIX + sku;
	}

}
