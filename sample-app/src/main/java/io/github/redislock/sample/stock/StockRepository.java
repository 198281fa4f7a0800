package io.github.redislock.sample.stock;

import java.util.ArrayList;
import java.util.List;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Stock levels in Redis: one string key per SKU, {@code sample:stock:<sku>}, holding the
 * units available. Plain reads and writes: whoever reads a level, decides and writes it
 * back must hold the SKU's lock ({@link StockLocks}).
 */
public class StockRepository {

	/** What every stock key starts with. */
	public static final String KEY_PREFIX = "sample:stock:";

	private final StringRedisTemplate redis;

	/**
	 * Creates a repository on the given connection.
	 * @param redis the template to read and write with
	 */
	public StockRepository(StringRedisTemplate redis) {
		this.redis = redis;
	}

	/** The units available; 0 for a SKU never stocked. */
	public int available(String sku) {
		String units = this.redis.opsForValue().get(key(sku));
		return (units != null) ? Integer.parseInt(units) : 0;
	}

	/** Sets the units available. */
	public void save(String sku, int units) {
		this.redis.opsForValue().set(key(sku), Integer.toString(units));
	}

	/** Forgets the SKU. */
	public void delete(String sku) {
		this.redis.delete(key(sku));
	}

	/**
	 * Every SKU that has a stock level, found with SCAN so that Redis is never blocked.
	 */
	public List<String> skus() {
		List<String> skus = new ArrayList<>();
		ScanOptions options = ScanOptions.scanOptions().match(KEY_PREFIX + "*").count(500).build();
		try (Cursor<String> keys = this.redis.scan(options)) {
			keys.forEachRemaining((key) -> skus.add(key.substring(KEY_PREFIX.length())));
		}
		return skus;
	}

	private static String key(String sku) {
		return KEY_PREFIX + sku;
	}

}
