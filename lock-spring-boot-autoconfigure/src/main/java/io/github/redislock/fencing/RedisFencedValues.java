package io.github.redislock.fencing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.core.io.ClassPathResource;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.DefaultRedisScript;
import org.springframework.data.redis.core.script.RedisScript;
import org.springframework.util.Assert;

/**
 * Values in Redis that only the newest holder of a lock can overwrite: each write carries
 * the writer's fencing token, and is refused with {@link StaleFencingTokenException} when
 * the key already holds a value written with a higher one. <pre class="code">
 * try (LockHandle lock = locks.acquire("stock:" + sku, Duration.ofSeconds(3), null)) {
 *     int units = Integer.parseInt(values.get("stock:" + sku));
 *     values.set("stock:" + sku, Integer.toString(units - 1), lock.fencingToken());
 * }
 * </pre>
 *
 * <p>
 * Each key is a hash with two fields: {@code value}, the last value written, and
 * {@code token}, the highest fencing token accepted (decimal digits). The comparison and
 * the write are one Lua script on that one key, so nothing slips between them, and it
 * runs on Redis Cluster as on a single server. Keys are used as given, with no prefix;
 * other commands may read the hash, but only writes through this class are fenced. As a
 * {@link FencingGuard}, {@link #accept(String, long)} records the token alone and keeps
 * the value.
 *
 * <p>
 * Pass a {@link StringRedisTemplate} without transaction support (a template in a MULTI
 * gets no reply from the script). If Redis cannot be reached, Spring Data Redis'
 * exception propagates and nothing is known to be written; retrying with the same token
 * is safe.
 *
 * @since 0.1.0
 */
public final class RedisFencedValues implements FencingGuard {

	private static final String VALUE = "value";

	private static final RedisScript<Long> SET = load("fenced-set.lua");

	private final StringRedisTemplate redis;

	/**
	 * Creates fenced values on the given template.
	 * @param redis a template on the Redis that holds the values (any, not necessarily
	 * the locks' Redis)
	 */
	public RedisFencedValues(StringRedisTemplate redis) {
		Assert.notNull(redis, "redis must not be null");
		this.redis = redis;
	}

	/**
	 * Writes the value under the token, unless the key holds a value written with a
	 * higher token.
	 * @param key the Redis key of the hash
	 * @param value the value
	 * @param token the fencing token of the lock held for the key
	 * @throws StaleFencingTokenException if a value was written with a higher token; the
	 * value is then unchanged
	 */
	public void set(String key, String value, long token) {
		Assert.notNull(value, "value must not be null");
		write(key, token, Long.toString(token), value);
	}

	/**
	 * Records the token alone, keeping the value, unless the key holds a higher one.
	 * @throws StaleFencingTokenException if the key holds a higher token
	 */
	@Override
	public void accept(String key, long token) {
		write(key, token, Long.toString(token));
	}

	/**
	 * The value last written to the key, or {@code null} when none was.
	 * @param key the Redis key of the hash
	 */
	public @Nullable String get(String key) {
		Assert.notNull(key, "key must not be null");
		Object value = this.redis.opsForHash().get(key, VALUE);
		return (value != null) ? value.toString() : null;
	}

	private void write(String key, long token, String... args) {
		Assert.notNull(key, "key must not be null");
		Long before = this.redis.execute(SET, List.of(key), (Object[]) args);
		Assert.state(before != null, () -> "The fenced write to '" + key + "' got no reply from Redis: is the"
				+ " StringRedisTemplate in a transaction (MULTI)? Pass one without transaction support");
		if (before > token) {
			throw new StaleFencingTokenException(key, token, before);
		}
	}

	// read once: a script on the resource itself would check the resource for changes on
	// every execution
	private static RedisScript<Long> load(String name) {
		try {
			String text = new ClassPathResource(name, RedisFencedValues.class)
				.getContentAsString(StandardCharsets.UTF_8);
			return new DefaultRedisScript<>(text, Long.class);
		}
		catch (IOException ex) {
			throw new UncheckedIOException("Could not read the script '" + name + "' from the classpath", ex);
		}
	}

	@Override
	public String toString() {
		return "RedisFencedValues";
	}

}
