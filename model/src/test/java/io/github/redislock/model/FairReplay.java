package io.github.redislock.model;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import io.github.redislock.model.FairTrace.Lock;
import io.github.redislock.model.FairTrace.Queue;
import io.github.redislock.model.FairTrace.State;
import io.github.redislock.model.FairTrace.Step;
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
 * Replays traces of model/fair_lock.qnt against the fair lock's Lua scripts on a real
 * Redis, as {@link ScriptReplay} does the exclusive lock's: each step runs its script
 * with the keys and arguments FairLock passes, and its reply, what it published and the
 * Redis state after it (the hash, the queue with its tickets, the heartbeats with their
 * scores, the keys' remaining times, the fencing clock) must be the model's.
 * <p>
 * Time is scaled as in {@link ScriptReplay}. The heartbeats' scores are absolute times of
 * the server's clock (ms): after each tick and failover the replay sets them to the
 * server's time plus the model's remaining time, or to 1 (long gone) when the model's
 * waiter counts as gone; after each step, each must lie within
 * {@link ScriptReplay#MARGIN} below the server's time plus the model's remaining time.
 */
final class FairReplay {

	// FairLock's ALIVE_MILLIS, RECHECK_MILLIS, HELD_SLEEP_MILLIS as the model has them
	static final long ALIVE_MS = 6;

	static final long RECHECK_MS = 2;

	static final long HELD_SLEEP_MS = 30;

	static final String LOCK_KEY = "model:fair";

	static final String QUEUE_KEY = LOCK_KEY + ":queue";

	static final String ALIVE_KEY = LOCK_KEY + ":alive";

	static final String CLOCK_KEY = "model:fence";

	static final String CHANNEL = LOCK_KEY + ":released";

	private static final List<String> SCRIPT_STEPS = List.of("acquire", "release", "withdraw", "heartbeat", "extend",
			"renew");

	private final RedisCommands<String, String> redis;

	private final BlockingQueue<String> published;

	private final Map<String, String> scripts = new HashMap<>();

	private long sentinels;

	/**
	 * A replay.
	 * @param redis the connection the scripts run on
	 * @param published every message published on {@link #CHANNEL}, in order
	 * @param replaced scripts to run instead of the library's, by name ("fair-lock")
	 */
	FairReplay(RedisCommands<String, String> redis, BlockingQueue<String> published, Map<String, String> replaced) {
		this.redis = redis;
		this.published = published;
		for (String name : List.of("fair-lock", "fair-unlock", "fair-withdraw", "fair-heartbeat", "extend", "renew")) {
			this.scripts.put(name, ScriptReplay.classpathScript(name));
		}
		this.scripts.putAll(replaced);
	}

	/**
	 * Replays one trace from an empty Redis.
	 * @throws AssertionError naming the trace, the step and what differs
	 */
	void replay(FairTrace trace) {
		this.redis.flushall();
		this.published.clear();
		Tokens tokens = new Tokens();
		Map<String, byte[]> snapshot = new HashMap<>();
		String snapshotClock = null;
		List<State> states = trace.states();
		for (int i = 1; i < states.size(); i++) {
			State before = states.get(i - 1);
			State after = states.get(i);
			Step step = after.last();
			String where = "%s, step %d of %d (%s): %s".formatted(trace.name(), i, states.size() - 1,
					after.actionTaken(), step);
			switch (step.kind()) {
				case "acquire" -> {
					long reply = evalNumber("fair-lock", List.of(LOCK_KEY, QUEUE_KEY, ALIVE_KEY, CLOCK_KEY),
							ms(step.lease()), step.owner(), Long.toString(step.holds()), step.waits() ? "1" : "0",
							ms(ALIVE_MS), ms(RECHECK_MS), ms(HELD_SLEEP_MS));
					if (step.reply() > 0) {
						check(where, reply > 0, "reply %d, the model grants (token %d)", reply, step.reply());
						tokens.check(where, "token", step.reply(), reply);
					}
					else {
						check(where, reply < 0, "reply %d, the model refuses (%d)", reply, step.reply());
						checkLease(where, "the refusal's wait", -step.reply(), -reply);
					}
				}
				case "release" ->
					same(where, "reply", step.reply(), evalNumber("fair-unlock", List.of(LOCK_KEY, QUEUE_KEY),
							step.owner(), "0", Long.toString(step.holds()), ms(step.keep()), "0", CHANNEL));
				case "withdraw" -> same(where, "reply", step.reply(), evalNumber("fair-withdraw",
						List.of(LOCK_KEY, QUEUE_KEY, ALIVE_KEY), step.owner(), "0", CHANNEL));
				case "heartbeat" -> {
					List<String> args = new ArrayList<>(List.of(ms(ALIVE_MS), "0", CHANNEL));
					args.addAll(step.owners());
					List<Object> missing = this.redis.eval(this.scripts.get("fair-heartbeat"), ScriptOutputType.MULTI,
							new String[] { LOCK_KEY, QUEUE_KEY, ALIVE_KEY }, args.toArray(new String[0]));
					same(where, "reply (the owners no longer queued)", step.missing(), missing);
				}
				case "extend" -> same(where, "reply", step.reply(),
						evalNumber("extend", List.of(LOCK_KEY), step.owner(), ms(step.lease())));
				case "renew" -> {
					List<Object> lost = this.redis.eval(this.scripts.get("renew"), ScriptOutputType.MULTI,
							new String[] { LOCK_KEY }, ms(step.lease()), step.owner());
					same(where, "reply", (step.reply() == 0) ? List.of() : List.of(1L), lost);
				}
				case "crash", "snapshot" -> {
					if (step.kind().equals("snapshot")) {
						for (String key : List.of(LOCK_KEY, QUEUE_KEY, ALIVE_KEY)) {
							snapshot.put(key, this.redis.dump(key));
						}
						snapshotClock = this.redis.get(CLOCK_KEY);
					}
				}
				case "tick" -> {
					expire(LOCK_KEY, after.lock().exists(), after.lock().expiresAt() - after.now());
					expire(QUEUE_KEY, after.queue().exists(), after.queue().expiresAt() - after.now());
					expire(ALIVE_KEY, after.queue().exists(), after.queue().expiresAt() - after.now());
					setHeartbeats(after);
				}
				case "dataLoss" -> this.redis.flushall();
				case "failover" -> {
					restore(where, snapshot, LOCK_KEY, after.lock().exists(), after.lock().expiresAt() - after.now());
					restore(where, snapshot, QUEUE_KEY, after.queue().exists(),
							after.queue().expiresAt() - after.now());
					restore(where, snapshot, ALIVE_KEY, after.queue().exists(),
							after.queue().expiresAt() - after.now());
					if (snapshotClock != null) {
						this.redis.set(CLOCK_KEY, snapshotClock);
					}
					else {
						this.redis.del(CLOCK_KEY);
					}
					setHeartbeats(after);
				}
				default -> throw new AssertionError(where + ": a step the replay does not know");
			}
			if (SCRIPT_STEPS.contains(step.kind())) {
				checkPublished(where, step);
			}
			checkState(where, after, tokens);
		}
	}

	// the model's time passed: a key's remaining time becomes the model's, or it expires
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

	// each waiter's heartbeat score: the server's time plus the model's remaining time,
	// or
	// long past when the model's waiter counts as gone
	private void setHeartbeats(State after) {
		long now = serverMillis();
		after.queue().alive().forEach((owner, at) -> {
			long remaining = at - after.now();
			this.redis.zadd(ALIVE_KEY, ZAddArgs.Builder.xx(), (remaining > 0) ? now + remaining * SCALE : 1, owner);
		});
	}

	private long serverMillis() {
		List<String> time = this.redis.time();
		return Long.parseLong(time.get(0)) * 1000 + Long.parseLong(time.get(1)) / 1000;
	}

	// what the script published, up to a sentinel of the replay's own (see ScriptReplay)
	private void checkPublished(String where, Step step) {
		String sentinel = "sentinel:" + (++this.sentinels);
		this.redis.publish(CHANNEL, sentinel);
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
			if (message.equals(sentinel)) {
				break;
			}
			messages.add(message);
		}
		same(where, "published", step.published().isEmpty() ? List.of() : List.of(step.published()), messages);
	}

	private void checkState(String where, State expected, Tokens tokens) {
		Lock lock = expected.lock();
		Map<String, String> hash = this.redis.hgetall(LOCK_KEY);
		if (!lock.exists()) {
			check(where, hash.isEmpty(), "the lock is %s, the model's has no key", hash);
		}
		else {
			Map<String, String> wanted = new TreeMap<>();
			lock.holds().forEach((owner, count) -> wanted.put(owner, Long.toString(count)));
			if (lock.holdAtLeast()) {
				wanted.put("hold-at-least", "1");
			}
			Map<String, String> actual = new TreeMap<>(hash);
			String token = actual.remove("token");
			check(where, token != null, "the lock %s has no token, the model's %s", hash, lock);
			check(where, wanted.equals(actual), "the lock's fields are %s, the model's %s (token aside)", actual,
					wanted);
			tokens.check(where, "the lock's token", lock.token(), Long.parseLong(token));
			checkLease(where, "the lock's remaining lease (PTTL)", lock.expiresAt() - expected.now(),
					this.redis.pttl(LOCK_KEY));
		}
		Queue queue = expected.queue();
		Map<String, Long> tickets = new TreeMap<>();
		for (ScoredValue<String> entry : this.redis.zrangeWithScores(QUEUE_KEY, 0, -1)) {
			tickets.put(entry.getValue(), (long) entry.getScore());
		}
		same(where, "the queue (owner=ticket)", new TreeMap<>(queue.tickets()), tickets);
		List<ScoredValue<String>> alive = this.redis.zrangeWithScores(ALIVE_KEY, 0, -1);
		same(where, "the heartbeats' owners", new TreeSet<>(queue.alive().keySet()),
				alive.stream().map(ScoredValue::getValue).collect(Collectors.toCollection(TreeSet::new)));
		if (queue.exists()) {
			long now = serverMillis();
			for (ScoredValue<String> entry : alive) {
				long remaining = queue.alive().get(entry.getValue()) - expected.now();
				long real = (long) entry.getScore() - now;
				if (remaining > 0) {
					checkLease(where, "the heartbeat of " + entry.getValue() + " (its score - TIME)", remaining, real);
				}
				else {
					check(where, real <= 0, "the heartbeat of %s is %d ms ahead, the model's waiter counts as gone",
							entry.getValue(), real);
				}
			}
			for (String key : List.of(QUEUE_KEY, ALIVE_KEY)) {
				checkLease(where, "the remaining time of " + key + " (PTTL)", queue.expiresAt() - expected.now(),
						this.redis.pttl(key));
			}
		}
		String clock = this.redis.get(CLOCK_KEY);
		if (expected.clock() == 0) {
			check(where, clock == null, "the fencing clock is %s, the model's has no key", clock);
		}
		else {
			check(where, clock != null, "no fencing clock, the model's is %d", expected.clock());
			tokens.check(where, "the fencing clock", expected.clock(), Long.parseLong(clock));
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
