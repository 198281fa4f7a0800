package io.github.redislock.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.sync.RedisCommands;

import static io.github.redislock.model.Checks.SCALE;
import static io.github.redislock.model.Checks.check;
import static io.github.redislock.model.Checks.checkLease;
import static io.github.redislock.model.Checks.checkTime;
import static io.github.redislock.model.Checks.same;
import static org.awaitility.Awaitility.await;

/**
 * Redis' side of a replay, for every kind alike: the model's time, data loss, snapshots
 * and failovers done to a kind's keys and the fencing clock, and the checks of those keys
 * against the model's (hashes, sorted sets of absolute times, remaining times, tokens).
 * <p>
 * A tick sets each key's remaining time (PEXPIRE) to the model's, or expires it (PEXPIRE
 * 1, then waits until it is gone). Data loss is FLUSHALL; a snapshot DUMPs the keys and
 * GETs the clock; a failover RESTOREs them with the model's remaining times. Absolute
 * times (scores, fields) are set to the server's time plus the model's remaining time, or
 * to 1 (long past) when the model's has passed.
 */
final class RedisSide {

	/** The fencing clock (a standalone Redis: any name will do). */
	static final String CLOCK_KEY = "model:fence";

	private final RedisCommands<String, String> commands;

	private final Map<String, byte[]> snapshot = new HashMap<>();

	private String snapshotClock;

	private Tokens tokens = new Tokens();

	RedisSide(RedisCommands<String, String> commands) {
		this.commands = commands;
	}

	RedisCommands<String, String> commands() {
		return this.commands;
	}

	/** The model's tokens against Redis', for the trace under way. */
	Tokens tokens() {
		return this.tokens;
	}

	/** An empty Redis, no snapshot, no tokens known: a trace starts. */
	void reset() {
		this.commands.flushall();
		this.tokens = new Tokens();
		this.snapshot.clear();
		this.snapshotClock = null;
	}

	void passTime(List<ModelKey> keys) {
		for (ModelKey key : keys) {
			if (key.exists()) {
				this.commands.pexpire(key.name(), key.remaining() * SCALE);
			}
			else if (this.commands.exists(key.name()) == 1) {
				this.commands.pexpire(key.name(), 1);
				awaitGone(key.name());
			}
		}
	}

	/** Waits until a key that expires (a PEXPIRE of 1 ms) is gone. */
	void awaitGone(String key) {
		await().atMost(Duration.ofSeconds(10))
			.pollInterval(Duration.ofMillis(1))
			.until(() -> this.commands.exists(key) == 0);
	}

	void snapshot(List<ModelKey> keys) {
		for (ModelKey key : keys) {
			this.snapshot.put(key.name(), this.commands.dump(key.name()));
		}
		this.snapshotClock = this.commands.get(CLOCK_KEY);
	}

	void failover(String where, List<ModelKey> keys) {
		for (ModelKey key : keys) {
			if (key.exists()) {
				byte[] dump = this.snapshot.get(key.name());
				check(where, dump != null, "the model restores %s, which the snapshot did not have", key.name());
				this.commands.restore(key.name(), dump, RestoreArgs.Builder.ttl(key.remaining() * SCALE).replace());
			}
			else {
				this.commands.del(key.name());
			}
		}
		if (this.snapshotClock != null) {
			this.commands.set(CLOCK_KEY, this.snapshotClock);
		}
		else {
			this.commands.del(CLOCK_KEY);
		}
	}

	void checkClock(String where, long model) {
		String clock = this.commands.get(CLOCK_KEY);
		if (model == 0) {
			check(where, clock == null, "the fencing clock is %s, the model's has no key", clock);
		}
		else {
			check(where, clock != null, "no fencing clock, the model's is %d", model);
			this.tokens.check(where, "the fencing clock", model, Long.parseLong(clock));
		}
	}

	/**
	 * Checks a hash: its fields, those set aside excepted, must be the wanted ones, and
	 * its remaining time the model's.
	 * @param wanted the fields (ignored when the model's key does not exist)
	 * @return the fields set aside, by name (absent ones left out)
	 */
	Map<String, String> checkHash(String where, ModelKey key, Map<String, String> wanted, String... aside) {
		Map<String, String> actual = new TreeMap<>(this.commands.hgetall(key.name()));
		if (!key.exists()) {
			check(where, actual.isEmpty(), "%s is %s, the model's has no key", key.name(), actual);
			return Map.of();
		}
		Map<String, String> setAside = new TreeMap<>();
		for (String field : aside) {
			String value = actual.remove(field);
			if (value != null) {
				setAside.put(field, value);
			}
		}
		check(where, new TreeMap<>(wanted).equals(actual), "the fields of %s are %s, the model's %s (%s aside)",
				key.name(), actual, new TreeMap<>(wanted), String.join(", ", aside));
		checkPttl(where, key);
		return setAside;
	}

	/** A token field: absent when the model's is 0, else in the model's order. */
	void checkToken(String where, String field, long model, String real) {
		if (model == 0) {
			check(where, real == null, "field %s is %s, the model's has none", field, real);
		}
		else {
			check(where, real != null, "no field %s, the model's is %d", field, model);
			this.tokens.check(where, "field " + field, model, Long.parseLong(real));
		}
	}

	/** A key's remaining time (PTTL), when the model's key exists. */
	void checkPttl(String where, ModelKey key) {
		if (key.exists()) {
			checkLease(where, "the remaining time of " + key.name() + " (PTTL)", key.remaining(),
					this.commands.pttl(key.name()));
		}
	}

	/** A sorted set's members and scores, by member. */
	Map<String, Long> scores(String key) {
		Map<String, Long> scores = new TreeMap<>();
		for (ScoredValue<String> entry : this.commands.zrangeWithScores(key, 0, -1)) {
			scores.put(entry.getValue(), (long) entry.getScore());
		}
		return scores;
	}

	/**
	 * A sorted set whose scores are absolute times: its members the model's, each score
	 * minus the server's time what is left of the model's, and its remaining time.
	 */
	void checkTimes(String where, ModelKey key, Map<String, Long> model, long modelNow) {
		Map<String, Long> actual = scores(key.name());
		same(where, key.name() + "'s members", new TreeMap<>(model).keySet(), actual.keySet());
		long serverNow = serverMillis();
		actual.forEach((member, score) -> checkTime(where, key.name() + " of " + member, model.get(member) - modelNow,
				score - serverNow));
		checkPttl(where, key);
	}

	/**
	 * Sets the scores of a sorted set's members to the model's absolute times. Members
	 * with the same time keep the order Redis has them in (the one written later above),
	 * each a millisecond below the next: a script that compares them (ZRANGE -1 -1) finds
	 * them as it would have without the rewrite.
	 */
	void setScores(String key, Map<String, Long> model, long modelNow) {
		long now = serverMillis();
		Map<String, Long> current = scores(key);
		Map<Long, List<String>> byTime = new TreeMap<>();
		model.forEach((member, at) -> byTime.computeIfAbsent(at, (time) -> new ArrayList<>()).add(member));
		byTime.forEach((at, tied) -> {
			tied.sort(Comparator.comparing((member) -> current.getOrDefault(member, 0L)));
			for (int i = 0; i < tied.size(); i++) {
				long real = realTime(now, at - modelNow);
				this.commands.zadd(key, ZAddArgs.Builder.xx(), (real > 1) ? real - (tied.size() - 1 - i) : real,
						tied.get(i));
			}
		});
	}

	/** The server's time plus what is left of a model's time, or 1 (long past). */
	static long realTime(long serverNow, long modelLeft) {
		return (modelLeft > 0) ? serverNow + modelLeft * SCALE : 1;
	}

	/**
	 * Waits until the server's clock is past the current millisecond, so that what the
	 * next script writes is later than anything written before it.
	 */
	void nextMillisecond() {
		long start = serverMillis();
		while (serverMillis() == start) {
			Thread.onSpinWait();
		}
	}

	/** The server's clock (TIME), in milliseconds. */
	long serverMillis() {
		List<String> time = this.commands.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	/**
	 * One of a kind's keys as the model has it.
	 *
	 * @param name the key
	 * @param exists whether the model's key exists
	 * @param remaining its remaining time, abstract milliseconds
	 */
	record ModelKey(String name, boolean exists, long remaining) {

	}

}
