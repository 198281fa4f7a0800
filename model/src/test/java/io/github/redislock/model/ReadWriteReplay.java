package io.github.redislock.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.model.ReadWriteTrace.Lock;
import io.github.redislock.model.ReadWriteTrace.State;
import io.github.redislock.model.ReadWriteTrace.Step;
import io.github.redislock.model.ReadWriteTrace.Zset;
import io.github.redislock.model.ScriptReplay.Tokens;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScoredValue;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.ZAddArgs;
import io.lettuce.core.api.sync.RedisCommands;

import static io.github.redislock.model.ScriptReplay.SCALE;
import static io.github.redislock.model.ScriptReplay.check;
import static io.github.redislock.model.ScriptReplay.checkLease;
import static io.github.redislock.model.ScriptReplay.same;
import static org.awaitility.Awaitility.await;

/**
 * Replays traces of model/read_write_lock.qnt against the read/write lock's Lua scripts
 * on a real Redis, as {@link ScriptReplay} does the exclusive lock's: each step runs its
 * script with the keys and arguments ReadLock and WriteLock pass, and its reply, what it
 * published on either channel and the Redis state after it (the hash, the readers' lease
 * ends and the writers' marks with their scores, the keys' remaining times, the fencing
 * clock) must be the model's. Absolute times (the sorted sets' scores, "read-turn") are
 * handled as {@link FairReplay} handles the heartbeats.
 */
final class ReadWriteReplay {

	// WriteLock's WAITING_MARK_MILLIS, WAITING_RECHECK_MILLIS, READ_TURN_MILLIS as the
	// model has them
	static final long MARK_MS = 3;

	static final long RECHECK_MS = 1;

	static final long TURN_MS = 1;

	static final String LOCK_KEY = "model:rw";

	static final String ENDS_KEY = LOCK_KEY + ":readers";

	static final String MARKS_KEY = LOCK_KEY + ":writers";

	static final String CLOCK_KEY = "model:fence";

	static final String READERS_CHANNEL = LOCK_KEY + ":read-released";

	static final String WRITERS_CHANNEL = LOCK_KEY + ":write-released";

	private static final List<String> KEYS = List.of(LOCK_KEY, ENDS_KEY, MARKS_KEY);

	private final RedisCommands<String, String> redis;

	private final BlockingQueue<String> published;

	private final Map<String, String> scripts = new HashMap<>();

	private long sentinels;

	/**
	 * A replay.
	 * @param redis the connection the scripts run on
	 * @param published every message on either channel, in order, as
	 * "readers:&lt;message&gt;" or "writers:&lt;message&gt;"
	 * @param replaced scripts to run instead of the library's, by name ("read-lock")
	 */
	ReadWriteReplay(RedisCommands<String, String> redis, BlockingQueue<String> published,
			Map<String, String> replaced) {
		this.redis = redis;
		this.published = published;
		for (String name : List.of("read-lock", "write-lock", "read-unlock", "write-unlock", "write-withdraw",
				"read-extend", "read-renew", "write-renew", "extend")) {
			this.scripts.put(name, ScriptReplay.classpathScript(name));
		}
		this.scripts.putAll(replaced);
	}

	/**
	 * Replays one trace from an empty Redis.
	 * @throws AssertionError naming the trace, the step and what differs
	 */
	void replay(ReadWriteTrace trace) {
		this.redis.flushall();
		this.published.clear();
		Tokens tokens = new Tokens();
		Map<String, byte[]> snapshot = new HashMap<>();
		String snapshotClock = null;
		List<State> states = trace.states();
		List<String> all = List.of(LOCK_KEY, ENDS_KEY, MARKS_KEY, CLOCK_KEY);
		for (int i = 1; i < states.size(); i++) {
			State after = states.get(i);
			Step step = after.last();
			String where = "%s, step %d of %d (%s): %s".formatted(trace.name(), i, states.size() - 1,
					after.actionTaken(), step);
			boolean script = true;
			switch (step.kind()) {
				case "readLock" -> checkAcquire(where, step, tokens, evalNumber("read-lock", all, ms(step.lease()),
						step.owner(), Long.toString(step.holds()), step.waits() ? "1" : "0"));
				case "writeLock" ->
					checkAcquire(where, step, tokens, evalNumber("write-lock", all, ms(step.lease()), step.owner(),
							Long.toString(step.holds()), step.waits() ? "1" : "0", ms(MARK_MS), ms(RECHECK_MS)));
				case "readUnlock" -> same(where, "reply", step.reply(), evalNumber("read-unlock",
						List.of(LOCK_KEY, ENDS_KEY), step.owner(), Long.toString(step.holds()), "0", WRITERS_CHANNEL));
				case "writeUnlock" -> same(where, "reply", step.reply(),
						evalNumber("write-unlock", List.of(LOCK_KEY, ENDS_KEY), step.owner(),
								Long.toString(step.holds()), "0", ms(TURN_MS), READERS_CHANNEL, WRITERS_CHANNEL));
				case "writeWithdraw" -> same(where, "reply", step.reply(),
						evalNumber("write-withdraw", List.of(MARKS_KEY), step.owner(), "0", READERS_CHANNEL));
				case "readExtend" -> same(where, "reply", step.reply(),
						evalNumber("read-extend", List.of(LOCK_KEY, ENDS_KEY), step.owner(), ms(step.lease())));
				case "writeExtend" -> same(where, "reply", step.reply(),
						evalNumber("extend", List.of(LOCK_KEY), "w:" + step.owner(), ms(step.lease())));
				case "readRenew" -> same(where, "reply", (step.reply() == 0) ? List.of() : List.of(1L),
						this.redis.eval(this.scripts.get("read-renew"), ScriptOutputType.MULTI,
								new String[] { LOCK_KEY, ENDS_KEY }, ms(step.lease()), "r:" + step.owner()));
				case "writeRenew" -> same(where, "reply", (step.reply() == 0) ? List.of() : List.of(1L),
						this.redis.eval(this.scripts.get("write-renew"), ScriptOutputType.MULTI,
								new String[] { LOCK_KEY }, ms(step.lease()), "w:" + step.owner()));
				case "readGiveUp", "crash" -> script = false;
				case "snapshot" -> {
					script = false;
					for (String key : KEYS) {
						snapshot.put(key, this.redis.dump(key));
					}
					snapshotClock = this.redis.get(CLOCK_KEY);
				}
				case "tick" -> {
					script = false;
					expire(LOCK_KEY, after.lock().exists(), after.lock().expiresAt() - after.now());
					expire(ENDS_KEY, after.ends().exists(), after.ends().expiresAt() - after.now());
					expire(MARKS_KEY, after.marks().exists(), after.marks().expiresAt() - after.now());
					setTimes(after);
				}
				case "dataLoss" -> {
					script = false;
					this.redis.flushall();
				}
				case "failover" -> {
					script = false;
					restore(where, snapshot, LOCK_KEY, after.lock().exists(), after.lock().expiresAt() - after.now());
					restore(where, snapshot, ENDS_KEY, after.ends().exists(), after.ends().expiresAt() - after.now());
					restore(where, snapshot, MARKS_KEY, after.marks().exists(),
							after.marks().expiresAt() - after.now());
					if (snapshotClock != null) {
						this.redis.set(CLOCK_KEY, snapshotClock);
					}
					else {
						this.redis.del(CLOCK_KEY);
					}
					setTimes(after);
				}
				default -> throw new AssertionError(where + ": a step the replay does not know");
			}
			if (script) {
				checkPublished(where, step);
			}
			checkState(where, after, tokens);
		}
	}

	private static void checkAcquire(String where, Step step, Tokens tokens, long reply) {
		if (step.reply() > 0) {
			check(where, reply > 0, "reply %d, the model grants (token %d)", reply, step.reply());
			tokens.check(where, "token", step.reply(), reply);
		}
		else {
			check(where, reply < 0, "reply %d, the model refuses (%d)", reply, step.reply());
			checkLease(where, "the refusal's wait", -step.reply(), -reply);
		}
	}

	private void expire(String key, boolean exists, long remaining) {
		if (exists) {
			this.redis.pexpire(key, remaining * SCALE);
		}
		else if (this.redis.exists(key) == 1) {
			this.redis.pexpire(key, 1);
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> this.redis.exists(key) == 0);
		}
	}

	private void restore(String where, Map<String, byte[]> snapshot, String key, boolean exists, long remaining) {
		if (exists) {
			check(where, snapshot.get(key) != null, "the model restores %s, which the snapshot did not have", key);
			this.redis.restore(key, snapshot.get(key), RestoreArgs.Builder.ttl(remaining * SCALE).replace());
		}
		else {
			this.redis.del(key);
		}
	}

	// the absolute times: the server's time plus the model's remaining time, or long past
	private void setTimes(State after) {
		long now = serverMillis();
		after.ends()
			.scores()
			.forEach((owner, at) -> this.redis.zadd(ENDS_KEY, ZAddArgs.Builder.xx(), real(now, at - after.now()),
					owner));
		after.marks()
			.scores()
			.forEach((owner, at) -> this.redis.zadd(MARKS_KEY, ZAddArgs.Builder.xx(), real(now, at - after.now()),
					owner));
		if (after.lock().readTurn() > 0) {
			this.redis.hset(LOCK_KEY, "read-turn",
					Long.toString((long) real(now, after.lock().readTurn() - after.now())));
		}
	}

	private static double real(long serverNow, long remaining) {
		return (remaining > 0) ? serverNow + remaining * SCALE : 1;
	}

	private long serverMillis() {
		List<String> time = this.redis.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	private void checkPublished(String where, Step step) {
		String sentinel = "sentinel:" + (++this.sentinels);
		this.redis.publish(WRITERS_CHANNEL, sentinel);
		List<String> messages = new ArrayList<>();
		while (true) {
			String message;
			try {
				message = this.published.poll(10, TimeUnit.SECONDS);
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
				throw new IllegalStateException(ex);
			}
			check(where, message != null, "no message within 10 s, not even the replay's own %s (published: %s)",
					sentinel, messages);
			if (message.equals("writers:" + sentinel)) {
				break;
			}
			messages.add(message);
		}
		same(where, "published", step.published().stream().map((channel) -> channel + ":released").toList(), messages);
	}

	private void checkState(String where, State expected, Tokens tokens) {
		Lock lock = expected.lock();
		long now = serverMillis();
		Map<String, String> hash = new TreeMap<>(this.redis.hgetall(LOCK_KEY));
		if (!lock.exists()) {
			check(where, hash.isEmpty(), "the lock is %s, the model's has no key", hash);
		}
		else {
			Map<String, String> wanted = new TreeMap<>();
			lock.readers().forEach((owner, count) -> wanted.put("r:" + owner, Long.toString(count)));
			if (lock.rn() != 0) {
				wanted.put("rn", Long.toString(lock.rn()));
			}
			if (!lock.writer().isEmpty()) {
				wanted.put("writer", lock.writer());
				wanted.put("w:" + lock.writer(), Long.toString(lock.writeHolds()));
			}
			if (lock.readersWaiting()) {
				wanted.put("readers-waiting", "1");
			}
			Map<String, String> actual = new TreeMap<>(hash);
			String rt = actual.remove("rt");
			String wt = actual.remove("wt");
			String turn = actual.remove("read-turn");
			check(where, wanted.equals(actual), "the lock's fields are %s, the model's %s (rt, wt, read-turn aside)",
					actual, wanted);
			token(where, tokens, "rt", lock.rt(), rt);
			token(where, tokens, "wt", lock.wt(), wt);
			if (lock.readTurn() == 0) {
				check(where, turn == null, "read-turn is %s, the model's has none", turn);
			}
			else {
				check(where, turn != null, "no read-turn, the model's is %d", lock.readTurn());
				time(where, "read-turn", lock.readTurn() - expected.now(), Long.parseLong(turn) - now);
			}
			checkLease(where, "the lock's remaining time (PTTL)", lock.expiresAt() - expected.now(),
					this.redis.pttl(LOCK_KEY));
		}
		zset(where, ENDS_KEY, expected.ends(), expected.now(), now);
		zset(where, MARKS_KEY, expected.marks(), expected.now(), now);
		String clock = this.redis.get(CLOCK_KEY);
		if (expected.clock() == 0) {
			check(where, clock == null, "the fencing clock is %s, the model's has no key", clock);
		}
		else {
			check(where, clock != null, "no fencing clock, the model's is %d", expected.clock());
			tokens.check(where, "the fencing clock", expected.clock(), Long.parseLong(clock));
		}
	}

	private static void token(String where, Tokens tokens, String field, long model, String real) {
		if (model == 0) {
			check(where, real == null, "field %s is %s, the model's has none", field, real);
		}
		else {
			check(where, real != null, "no field %s, the model's is %d", field, model);
			tokens.check(where, "field " + field, model, Long.parseLong(real));
		}
	}

	private void zset(String where, String key, Zset zset, long modelNow, long serverNow) {
		Map<String, Long> actual = new TreeMap<>();
		for (ScoredValue<String> entry : this.redis.zrangeWithScores(key, 0, -1)) {
			actual.put(entry.getValue(), (long) entry.getScore());
		}
		same(where, key + "'s members", new TreeMap<>(zset.scores()).keySet(), actual.keySet());
		actual.forEach((owner, score) -> time(where, key + " of " + owner, zset.scores().get(owner) - modelNow,
				score - serverNow));
		if (zset.exists()) {
			checkLease(where, "the remaining time of " + key + " (PTTL)", zset.expiresAt() - modelNow,
					this.redis.pttl(key));
		}
	}

	// an absolute time, as what is left of it: the model's, or passed when the model's
	// has
	private static void time(String where, String what, long modelLeft, long realLeft) {
		if (modelLeft > 0) {
			checkLease(where, what + " (minus TIME)", modelLeft, realLeft);
		}
		else {
			check(where, realLeft <= 0, "%s is %d ms ahead, the model's has passed", what, realLeft);
		}
	}

	private long evalNumber(String script, List<String> keys, String... args) {
		Long reply = this.redis.eval(this.scripts.get(script), ScriptOutputType.INTEGER, keys.toArray(new String[0]),
				args);
		return reply;
	}

	private static String ms(long modelMillis) {
		return Long.toString(modelMillis * SCALE);
	}

}
