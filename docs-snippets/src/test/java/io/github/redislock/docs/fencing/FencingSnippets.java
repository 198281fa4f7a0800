package io.github.redislock.docs.fencing;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import io.github.redislock.LockHandle;
import io.github.redislock.RedisLockClient;
import io.github.redislock.annotation.DistributedLock;
import io.github.redislock.fencing.FencingGuard;
import io.github.redislock.fencing.RedisFencedValues;
import io.github.redislock.fencing.StaleFencingTokenException;

import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.annotation.Transactional;

/** The code of docs/fencing.md. */
class FencingSnippets {

	static class Invoices {

		private final RedisLockClient locks;

		private final FencingGuard guard;

		private final JdbcTemplate jdbc;

		Invoices(RedisLockClient locks, FencingGuard guard, JdbcTemplate jdbc) {
			this.locks = locks;
			this.guard = guard;
			this.jdbc = jdbc;
		}

		// tag::jdbc[]
		@Transactional
		@DistributedLock(name = "invoice", key = "#id")
		public void pay(long id) {
			long token = locks.getLock("invoice:" + id).fencingToken();
			guard.accept("invoice:" + id, token); // stale: throws, rolls back
			jdbc.update("UPDATE invoice SET state = 'paid' WHERE id = ?", id);
		}
		// end::jdbc[]

	}

	static void redis(RedisLockClient locks, RedisFencedValues values) {
		// tag::redis[]
		try (LockHandle lock = locks.acquire("invoice:7", Duration.ofSeconds(3), null)) {
			values.set("invoice:7", "paid", lock.fencingToken()); // stale: throws
		}
		// end::redis[]
	}

	static void use(RedisLockClient locks, FencedStore store) {
		// tag::use[]
		try (LockHandle lock = locks.acquire("invoice:7", Duration.ofSeconds(3), null)) {
			store.write("invoice:7", "paid", lock.fencingToken());
		}
		// end::use[]
	}

	// tag::store[]
	/** A store that refuses writes from a holder that has been overtaken. */
	static class FencedStore {

		private final Map<String, Entry> entries = new ConcurrentHashMap<>();

		void write(String key, String value, long fencingToken) {
			entries.compute(key, (k, current) -> {
				if (current != null && current.token() > fencingToken) {
					throw new StaleFencingTokenException(key, fencingToken, current.token());
				}
				return new Entry(value, fencingToken);
			});
		}

		record Entry(String value, long token) {
		}

	}
	// end::store[]

}
