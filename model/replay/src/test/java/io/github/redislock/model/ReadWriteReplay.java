package io.github.redislock.model;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.model.ReadWriteTrace.Lock;
import io.github.redislock.model.ReadWriteTrace.State;
import io.github.redislock.model.ReadWriteTrace.Step;
import io.github.redislock.model.RedisSide.ModelKey;

import static io.github.redislock.model.Checks.check;
import static io.github.redislock.model.Checks.checkTime;
import static io.github.redislock.model.Checks.flag;
import static io.github.redislock.model.Checks.ms;
import static io.github.redislock.model.Checks.same;
import static io.github.redislock.model.RedisSide.CLOCK_KEY;

/**
 * Replays traces of model/read_write_lock.qnt against the read/write lock's Lua scripts
 * (see {@link Replay}): each step runs its script with the keys and arguments ReadLock
 * and WriteLock pass, and its reply, what it published on either channel and the Redis
 * state after it (the hash, the readers' lease ends and the writers' marks with their
 * scores, the keys' remaining times) must be the model's. Absolute times (the sorted
 * sets' scores, "read-turn", the minimum holds' "kept-write" and "kept-read") are set and
 * checked as what is left of the model's.
 */
final class ReadWriteReplay extends Replay<State> {

	// WriteLock's WAITING_MARK_MILLIS, WAITING_RECHECK_MILLIS, READ_TURN_MILLIS as the
	// model has them
	static final long MARK_MS = 3;

	static final long RECHECK_MS = 1;

	static final long TURN_MS = 1;

	static final String LOCK_KEY = "model:rw";

	static final String ENDS_KEY = LOCK_KEY + ":readers";

	static final String MARKS_KEY = LOCK_KEY + ":writers";

	static final String READERS_CHANNEL = LOCK_KEY + ":read-released";

	static final String WRITERS_CHANNEL = LOCK_KEY + ":write-released";

	// the channels' labels: the sentinel goes to the writers' channel
	private static final Map<String, String> CHANNELS = new LinkedHashMap<>();

	static {
		CHANNELS.put(WRITERS_CHANNEL, "writers:");
		CHANNELS.put(READERS_CHANNEL, "readers:");
	}

	/**
	 * A replay.
	 * @param replaced scripts to run instead of the library's, by name ("read-lock")
	 */
	ReadWriteReplay(ReplayRedis redis, Map<String, String> replaced) {
		super(redis, CHANNELS, List.of("read-lock", "write-lock", "read-unlock", "write-unlock", "write-withdraw",
				"read-extend", "read-renew", "write-renew", "extend"), replaced);
		List<String> all = List.of(LOCK_KEY, ENDS_KEY, MARKS_KEY, CLOCK_KEY);
		List<String> lockAndEnds = List.of(LOCK_KEY, ENDS_KEY);
		script("readLock", (where, before, after) -> {
			Step step = after.last();
			checkAcquired(where, step.reply(), eval("read-lock", all, ms(step.lease()), step.owner(),
					Long.toString(step.holds()), flag(step.waits())));
		});
		script("writeLock", (where, before, after) -> {
			Step step = after.last();
			checkAcquired(where, step.reply(), eval("write-lock", all, ms(step.lease()), step.owner(),
					Long.toString(step.holds()), flag(step.waits()), ms(MARK_MS), ms(RECHECK_MS)));
		});
		script("readUnlock",
				(where, before, after) -> same(where, "reply", after.last().reply(),
						eval("read-unlock", lockAndEnds, after.last().owner(), Long.toString(after.last().holds()), "0",
								WRITERS_CHANNEL, ms(after.last().keep()))));
		// the end of the minimum hold on the server's clock unknown (0), as the model has
		// it
		script("writeUnlock",
				(where, before, after) -> same(where, "reply", after.last().reply(),
						eval("write-unlock", lockAndEnds, after.last().owner(), Long.toString(after.last().holds()),
								"0", ms(TURN_MS), READERS_CHANNEL, WRITERS_CHANNEL, ms(after.last().keep()), "0")));
		script("writeWithdraw", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("write-withdraw", List.of(MARKS_KEY), after.last().owner(), "0", READERS_CHANNEL)));
		script("readExtend", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("read-extend", lockAndEnds, after.last().owner(), ms(after.last().lease()))));
		script("writeExtend", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("extend", List.of(LOCK_KEY), "w:" + after.last().owner(), ms(after.last().lease()))));
		script("readRenew", (where, before, after) -> checkRenewed(where, after.last().reply(),
				evalList("read-renew", lockAndEnds, ms(after.last().lease()), "r:" + after.last().owner())));
		script("writeRenew", (where, before, after) -> checkRenewed(where, after.last().reply(),
				evalList("write-renew", List.of(LOCK_KEY), ms(after.last().lease()), "w:" + after.last().owner())));
		local("readGiveUp");
		local("crash");
	}

	@Override
	protected List<ModelKey> keys(State state) {
		return List.of(new ModelKey(LOCK_KEY, state.lock().exists(), state.lock().expiresAt() - state.now()),
				new ModelKey(ENDS_KEY, state.ends().exists(), state.ends().expiresAt() - state.now()),
				new ModelKey(MARKS_KEY, state.marks().exists(), state.marks().expiresAt() - state.now()));
	}

	// the absolute times: the server's time plus the model's remaining time, or long past
	// (the minimum holds' ends in microseconds)
	@Override
	protected void setTimes(State after) {
		this.redis.setScores(ENDS_KEY, after.ends().scores(), after.now());
		this.redis.setScores(MARKS_KEY, after.marks().scores(), after.now());
		if (after.lock().readTurn() > 0) {
			long turn = RedisSide.realTime(this.redis.serverMillis(), after.lock().readTurn() - after.now());
			this.redis.commands().hset(LOCK_KEY, "read-turn", Long.toString(turn));
		}
		setKept("kept-write", after.lock().keptWrite(), after.now());
		setKept("kept-read", after.lock().keptRead(), after.now());
	}

	private void setKept(String field, long modelEnd, long modelNow) {
		if (modelEnd > 0) {
			long end = RedisSide.realTime(this.redis.serverMillis(), modelEnd - modelNow) * 1000;
			this.redis.commands().hset(LOCK_KEY, field, Long.toString(end));
		}
	}

	@Override
	protected List<String> published(State after) {
		return after.last().published().stream().map((channel) -> channel + ":released").toList();
	}

	// a field holding an absolute time: the server's in ms (perMilli 1) or in
	// microseconds
	// (1000), checked as what is left of the model's
	private static void checkTimeField(String where, String field, long model, long modelNow, String real,
			long serverNow, long perMilli) {
		if (model == 0) {
			check(where, real == null, "%s is %s, the model's has none", field, real);
		}
		else {
			check(where, real != null, "no %s, the model's is %d", field, model);
			checkTime(where, field, model - modelNow, Long.parseLong(real) / perMilli - serverNow);
		}
	}

	@Override
	protected void checkKeys(String where, State expected) {
		List<ModelKey> keys = keys(expected);
		Lock lock = expected.lock();
		long now = this.redis.serverMillis();
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
		Map<String, String> aside = this.redis.checkHash(where, keys.get(0), wanted, "rt", "wt", "read-turn",
				"kept-write", "kept-read");
		if (lock.exists()) {
			this.redis.checkToken(where, "rt", lock.rt(), aside.get("rt"));
			this.redis.checkToken(where, "wt", lock.wt(), aside.get("wt"));
			checkTimeField(where, "read-turn", lock.readTurn(), expected.now(), aside.get("read-turn"), now, 1);
			checkTimeField(where, "kept-write", lock.keptWrite(), expected.now(), aside.get("kept-write"), now, 1000);
			checkTimeField(where, "kept-read", lock.keptRead(), expected.now(), aside.get("kept-read"), now, 1000);
		}
		this.redis.checkTimes(where, keys.get(1), expected.ends().scores(), expected.now());
		this.redis.checkTimes(where, keys.get(2), expected.marks().scores(), expected.now());
	}

}
