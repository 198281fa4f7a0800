package io.github.redislock;

import java.util.List;

import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.data.redis.core.script.RedisScript;

/**
 * A store protected the way the README recommends: every write carries the writer's
 * fencing token, and a write with a token lower than the highest the store has accepted
 * is rejected. With fencing off it accepts every write, as most stores do.
 */
final class FencedStore {

	private static final RedisScript<Long> FENCED_WRITE = RedisScript.of("""
			local highest = tonumber(redis.call('hget', KEYS[1], 'token') or '0')
			if tonumber(ARGV[2]) < highest then
			  return 0
			end
			redis.call('hset', KEYS[1], 'token', ARGV[2], 'value', ARGV[1])
			return 1
			""", Long.class);

	private final StringRedisTemplate redis;

	private final String key;

	private final boolean fenced;

	FencedStore(StringRedisTemplate redis, String key, boolean fenced) {
		this.redis = redis;
		this.key = key;
		this.fenced = fenced;
	}

	/** Writes the value; returns whether the store accepted it. */
	boolean write(String value, long token) {
		if (!this.fenced) {
			this.redis.opsForHash().put(this.key, "value", value);
			return true;
		}
		return Long.valueOf(1).equals(this.redis.execute(FENCED_WRITE, List.of(this.key), value, Long.toString(token)));
	}

	String value() {
		return (String) this.redis.opsForHash().get(this.key, "value");
	}

}
