package io.github.redislock.docs.fencing;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;

/** The code of docs/fencing.md. */
class FencingSnippets {

	// tag::store[]
	/** A store that refuses writes from a holder that has been overtaken. */
	static class FencedStore {

		private final Map<String, Entry> entries = new ConcurrentHashMap<>();

		void write(String key, String value, long fencingToken) {
			entries.compute(key, (k, current) -> {
				if (current != null && current.token() > fencingToken) {
					throw new IllegalStateException(
							"stale write to " + key + ": token " + fencingToken + " is older than " + current.token());
				}
				return new Entry(value, fencingToken);
			});
		}

		record Entry(String value, long token) {
		}

	}
	// end::store[]

	static void use(RedisLockClient locks, FencedStore store) {
		// tag::use[]
		try (LockHandle lock = locks.acquire("invoice:7", Duration.ofSeconds(3), null)) {
			store.write("invoice:7", "paid", lock.fencingToken());
		}
		// end::use[]
	}

}
