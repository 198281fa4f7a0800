package io.github.redislock;

import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.Callable;

import io.github.redislock.testsupport.RedisServer;

import static org.awaitility.Awaitility.await;

/**
 * Fills a test's own Redis past a small {@code maxmemory}, so that its eviction policy
 * removes keys, as a Redis used as a cache does.
 */
final class MemoryPressure {

	/** How far above what the server uses now its limit is set. */
	private static final long HEADROOM_BYTES = 1024 * 1024;

	private static final int KEYS_PER_ROUND = 100;

	private static final String VALUE = "x".repeat(1024);

	// keys of no lock: each round writes KEYS_PER_ROUND new ones; the eviction runs
	// before each script
	private static final String FILL = """
			for i = 1, tonumber(ARGV[2]) do
			  redis.call('set', ARGV[1] .. i, ARGV[3])
			end
			return 1
			""";

	private MemoryPressure() {
	}

	/** Sets the limit a little above what the server uses now, and the policy. */
	static void limit(RedisServer server, String policy) {
		server.command("CONFIG", "SET", "maxmemory-policy", policy);
		server.command("CONFIG", "SET", "maxmemory", Long.toString(info(server, "used_memory") + HEADROOM_BYTES));
	}

	/** Removes the limit. */
	static void lift(RedisServer server) {
		server.command("CONFIG", "SET", "maxmemory", "0");
		server.command("CONFIG", "SET", "maxmemory-policy", "noeviction");
	}

	/** Writes junk keys until the condition holds. */
	static void fillUntil(RedisServer server, Callable<Boolean> condition) {
		await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ZERO).until(() -> {
			try {
				server.command("EVAL", FILL, "0", "junk:" + UUID.randomUUID() + ":", Integer.toString(KEYS_PER_ROUND),
						VALUE);
			}
			catch (IllegalStateException ex) {
				// a volatile policy with no key left that expires refuses writes; what
				// was
				// evicted before that is what the caller looks at
				if (!String.valueOf(ex.getMessage()).contains("OOM")) {
					throw ex;
				}
			}
			return condition.call();
		});
	}

	static long evictedKeys(RedisServer server) {
		return info(server, "evicted_keys");
	}

	private static long info(RedisServer server, String field) {
		return server.command("INFO")
			.lines()
			.filter((line) -> line.startsWith(field + ":"))
			.map((line) -> Long.parseLong(line.substring(field.length() + 1).trim()))
			.findFirst()
			.orElseThrow(() -> new IllegalStateException("No " + field + " in INFO"));
	}

}
