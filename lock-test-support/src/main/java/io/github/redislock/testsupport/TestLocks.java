package io.github.redislock.testsupport;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.data.redis.core.Cursor;
import org.springframework.data.redis.core.ScanOptions;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The locks of the application under test, in its test Redis. A bean in every context of
 * an {@link AutoConfigureTestRedis} test, used after each test method to release what the
 * test left held; a test can also call it itself:
 *
 * <pre class="code">
 * &#64;Autowired
 * TestLocks testLocks;
 *
 * &#64;Test
 * void auditRunsAgainOnceItsMinimumHoldIsReleased() {
 *     audit.run();
 *     testLocks.releaseAll();
 *     audit.run();
 * }
 * </pre>
 *
 * @since 0.1.0
 */
public final class TestLocks {

	private static final Log logger = LogFactory.getLog(TestLocks.class);

	private static final int BATCH = 500;

	private final Supplier<StringRedisTemplate> redis;

	private final Supplier<String> keyPrefix;

	TestLocks(Supplier<StringRedisTemplate> redis, Supplier<String> keyPrefix) {
		this.redis = redis;
		this.keyPrefix = keyPrefix;
	}

	/**
	 * Releases every lock of the application, whoever holds it: deletes every Redis key
	 * under its key prefix ({@code redis-lock.key-prefix}, {@code lock:} by default),
	 * through the application's Redis connection. Locks, read/write and fair locks and
	 * their queues, semaphore permits, and locks kept after their holder's release
	 * ({@code holdAtLeast}, a scheduled job's rest of its tick) are gone at once. A
	 * thread of the application that still holds one learns that its lease was lost, as
	 * after a forced release; one that waits for one takes it at the latest when the
	 * lease it was told of ends.
	 * @return how many keys were deleted
	 */
	public long releaseAll() {
		StringRedisTemplate redis = this.redis.get();
		String prefix = this.keyPrefix.get();
		List<String> keys = new ArrayList<>();
		long deleted = 0;
		try (Cursor<String> cursor = redis
			.scan(ScanOptions.scanOptions().match(glob(prefix) + "*").count(BATCH).build())) {
			while (cursor.hasNext()) {
				keys.add(cursor.next());
				if (keys.size() == BATCH) {
					deleted += unlink(redis, keys);
				}
			}
		}
		deleted += unlink(redis, keys);
		if (deleted > 0) {
			logger.debug("Released the application's locks: deleted " + deleted + " keys under '" + prefix + "'");
		}
		return deleted;
	}

	private static long unlink(StringRedisTemplate redis, List<String> keys) {
		if (keys.isEmpty()) {
			return 0;
		}
		Long deleted = redis.unlink(keys);
		keys.clear();
		return (deleted != null) ? deleted : 0;
	}

	/** The prefix as a SCAN pattern that matches it literally. */
	static String glob(String prefix) {
		StringBuilder pattern = new StringBuilder(prefix.length());
		for (char c : prefix.toCharArray()) {
			if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
				pattern.append('\\');
			}
			pattern.append(c);
		}
		return pattern.toString();
	}

}
