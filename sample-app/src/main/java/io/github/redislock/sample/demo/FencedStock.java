package io.github.redislock.sample.demo;

import java.util.List;
import java.util.Map;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;

/**
 * A stock level that remembers the fencing token of its last write and refuses a write
 * with an older one: the store side of fencing. A holder whose lock passed on while it
 * was paused (a GC pause, a stalled VM) still believes it holds the lock when it resumes;
 * its token tells the store otherwise. One hash per SKU, {@code sample:fenced:<sku>},
 * with the fields {@code units} and {@code token}; the check and the write are one Lua
 * script, so no write slips between them.
 */
final class FencedStock {

	private static final String KEY_PREFIX = "sample:fenced:";

	// KEYS[1] the SKU's hash; ARGV[1] the units, ARGV[2] the writer's fencing token.
	// Returns 1 when written, 0 when a write with a newer token came first.
	private static final DefaultRedisScript<Long> WRITE = new DefaultRedisScript<>("""
			local last = tonumber(redis.call('hget', KEYS[1], 'token') or '0')
			if tonumber(ARGV[2]) < last then
			  return 0
			end
			redis.call('hset', KEYS[1], 'units', ARGV[1], 'token', ARGV[2])
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	FencedStock(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/** Stocks a SKU, as a write no holder made (token 0). */
	void stock(String sku, int units) {
		this.redis.opsForHash().putAll(key(sku), Map.of("units", Integer.toString(units), "token", "0"));
	}

	int available(String sku) {
		Object units = this.redis.opsForHash().get(key(sku), "units");
		return (units != null) ? Integer.parseInt(units.toString()) : 0;
	}

	/**
	 * Writes the units, unless a writer with a newer token wrote first.
	 * @return whether it was written
	 */
	boolean write(String sku, int units, long fencingToken) {
		Long written = this.redis.execute(WRITE, List.of(key(sku)), Integer.toString(units),
				Long.toString(fencingToken));
		return written != null && written == 1;
	}

	void delete(String sku) {
		this.redis.delete(key(sku));
	}

	private static String key(String sku) {
		return KEY_PREFIX + sku;
	}

}
