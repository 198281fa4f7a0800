package io.github.redislock.model;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.model.ModelTrace.Lock;
import io.github.redislock.model.ModelTrace.State;
import io.github.redislock.model.ModelTrace.Step;
import io.lettuce.core.RestoreArgs;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.sync.RedisCommands;

import static org.awaitility.Awaitility.await;

/**
 * Replays model traces against the lock's Lua scripts on a real Redis: each step runs its
 * script with EVAL and the keys and arguments the Java callers (ExclusiveLock) pass, and
 * its reply and the Redis state after it must be the model's.
 * <p>
 * Time: one model millisecond is {@link #SCALE} real ones, so that no key expires while a
 * trace replays (a trace takes well under a second). The model's ticks set the lock's
 * remaining lease (PEXPIRE) to the model's, or expire it (PEXPIRE 1, then wait until it
 * is gone); every remaining lease Redis reports (PTTL, and the busy replies of lock.lua)
 * must lie within {@link #MARGIN} below the model's. Fencing tokens come from Redis' own
 * clock: model and real tokens must be in the same order, not equal.
 */
final class ScriptReplay {

	/** Real milliseconds per model millisecond. */
	static final long SCALE = 10_000;

	/** How far below the model's a remaining lease may be, in real milliseconds. */
	static final long MARGIN = SCALE / 2;

	static final String LOCK_KEY = "model:lock";

	// a standalone Redis: any name will do (the library puts both in one cluster slot)
	static final String CLOCK_KEY = "model:fence";

	static final String CHANNEL = LOCK_KEY + ":released";

	private static final Set<String> SCRIPT_STEPS = Set.of("acquire", "release", "withdraw", "extend", "renew", "pass");

	private static final String SCRIPTS = "io/github/redislock/internal/";

	private final RedisCommands<String, String> redis;

	private final BlockingQueue<String> published;

	private final Map<String, String> scripts;

	private long sentinels;

	/**
	 * A replay.
	 * @param redis the connection the scripts run on
	 * @param published every message published on {@link #CHANNEL}, in order, from a
	 * connection subscribed to it
	 * @param replaced scripts to run instead of the library's, by name ("unlock")
	 */
	ScriptReplay(RedisCommands<String, String> redis, BlockingQueue<String> published, Map<String, String> replaced) {
		this.redis = redis;
		this.published = published;
		this.scripts = new HashMap<>();
		for (String name : List.of("lock", "unlock", "withdraw", "extend", "renew", "pass")) {
			this.scripts.put(name, classpathScript(name));
		}
		this.scripts.putAll(replaced);
	}

	/** The library's script of that name, from the auto-configuration jar. */
	static String classpathScript(String name) {
		try (InputStream in = ScriptReplay.class.getClassLoader().getResourceAsStream(SCRIPTS + name + ".lua")) {
			return new String(Objects.requireNonNull(in, name).readAllBytes(), StandardCharsets.UTF_8);
		}
		catch (IOException ex) {
			throw new UncheckedIOException(ex);
		}
	}

	/**
	 * Replays one trace from an empty Redis.
	 * @throws AssertionError naming the trace, the step and what differs, at the first
	 * step where Redis and the model part
	 */
	void replay(ModelTrace trace) {
		this.redis.flushall();
		this.published.clear();
		Tokens tokens = new Tokens();
		byte[] snapshotLock = null;
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
					long reply = evalNumber("lock", List.of(LOCK_KEY, CLOCK_KEY), ms(step.lease()), step.owner(),
							Long.toString(step.holds()), Long.toString(step.reserve()), flag(step.waits()));
					checkAcquireReply(where, step.reply(), reply, before, tokens);
				}
				case "release" -> {
					long reply = evalNumber("unlock", List.of(LOCK_KEY), step.owner(), "0", Long.toString(step.holds()),
							ms(step.keep()), ms(step.yieldMs()), flag(step.othersOnly()), CHANNEL, "0");
					same(where, "reply", step.reply(), reply);
				}
				case "withdraw" -> {
					long reply = evalNumber("withdraw", List.of(LOCK_KEY), step.owner(), "0", CHANNEL);
					same(where, "reply", step.reply(), reply);
				}
				case "extend" -> {
					long reply = evalNumber("extend", List.of(LOCK_KEY), step.owner(), ms(step.lease()));
					same(where, "reply", step.reply(), reply);
				}
				case "renew" -> {
					List<Object> lost = this.redis.eval(this.scripts.get("renew"), ScriptOutputType.MULTI,
							new String[] { LOCK_KEY }, ms(step.lease()), step.owner());
					same(where, "reply", (step.reply() == 0) ? List.of() : List.of(1L), lost);
				}
				case "pass" -> {
					long reply = evalNumber("pass", List.of(LOCK_KEY, CLOCK_KEY), step.owner(),
							Long.toString(step.reserve()), "0", ms(step.lease()), ms(step.yieldMs()),
							flag(step.giveUp()), CHANNEL);
					if (step.reply() > 0) {
						check(where, reply > 0, "reply %d, the model's a token (%d)", reply, step.reply());
						tokens.check(where, "token", step.reply(), reply);
					}
					else {
						same(where, "reply", step.reply(), reply);
					}
				}
				case "tick" -> passTime(after);
				case "dataLoss" -> this.redis.flushall();
				case "snapshot" -> {
					snapshotLock = this.redis.dump(LOCK_KEY);
					snapshotClock = this.redis.get(CLOCK_KEY);
				}
				case "failover" -> {
					if (after.lock().exists()) {
						check(where, snapshotLock != null, "the model restores a lock the snapshot did not have");
						this.redis.restore(LOCK_KEY, snapshotLock,
								RestoreArgs.Builder.ttl(remaining(after) * SCALE).replace());
					}
					else {
						this.redis.del(LOCK_KEY);
					}
					if (snapshotClock != null) {
						this.redis.set(CLOCK_KEY, snapshotClock);
					}
					else {
						this.redis.del(CLOCK_KEY);
					}
				}
				default -> throw new AssertionError(where + ": a step the replay does not know");
			}
			if (SCRIPT_STEPS.contains(step.kind())) {
				checkPublished(where, step, after);
			}
			checkState(where, after, tokens);
		}
	}

	// What the script published: a sentinel published after it arrives after whatever the
	// script published (one connection's messages arrive in order), so waiting for the
	// sentinel is waiting for every message of the step, and no more.
	private void checkPublished(String where, Step step, State after) {
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
		List<String> expected = switch (step.published()) {
			case "" -> List.of();
			case "yielded" -> List.of("yielded:" + after.lock().yieldedBy());
			default -> List.of(step.published());
		};
		same(where, "published", expected, messages);
	}

	// lock.lua: a token when granted (the stored one on re-entry), minus the remaining
	// lease when busy
	private void checkAcquireReply(String where, long expected, long reply, State before, Tokens tokens) {
		if (expected > 0) {
			check(where, reply > 0, "reply %d, the model grants (token %d)", reply, expected);
			tokens.check(where, "token", expected, reply);
		}
		else if (expected < 0) {
			check(where, reply < 0, "reply %d, the model refuses (%d)", reply, expected);
			checkLease(where, "the busy reply's wait", -expected, -reply);
		}
		else {
			same(where, "reply", expected, reply);
		}
	}

	// the model's time passed: the lock's remaining lease becomes the model's, or it
	// expires
	private void passTime(State after) {
		if (after.lock().exists()) {
			this.redis.pexpire(LOCK_KEY, remaining(after) * SCALE);
		}
		else if (this.redis.exists(LOCK_KEY) == 1) {
			this.redis.pexpire(LOCK_KEY, 1);
			await().atMost(Duration.ofSeconds(10))
				.pollInterval(Duration.ofMillis(1))
				.until(() -> this.redis.exists(LOCK_KEY) == 0);
		}
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
			if (!lock.client().isEmpty()) {
				wanted.put("client", lock.client());
			}
			if (lock.yielded()) {
				wanted.put("yielded-by", lock.yieldedBy());
			}
			if (lock.holdAtLeast()) {
				wanted.put("hold-at-least", "1");
			}
			lock.marks().forEach((mark) -> wanted.put("w:" + mark, "1"));
			if (lock.contended() > 0) {
				wanted.put("contended", Long.toString(lock.contended()));
			}
			Map<String, String> actual = new TreeMap<>(hash);
			String token = actual.remove("token");
			check(where, token != null, "the lock %s has no token, the model's %s", hash, lock);
			check(where, wanted.equals(actual), "the lock's fields are %s, the model's %s (token aside)", actual,
					wanted);
			tokens.check(where, "the lock's token", lock.token(), Long.parseLong(token));
			checkLease(where, "the lock's remaining lease (PTTL)", remaining(expected), this.redis.pttl(LOCK_KEY));
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

	static void checkLease(String where, String what, long modelMillis, long realMillis) {
		long high = modelMillis * SCALE;
		check(where, realMillis <= high && realMillis > high - MARGIN,
				"%s is %d ms, the model's %d (%d ms real, less at most %d)", what, realMillis, modelMillis, high,
				MARGIN);
	}

	private static long remaining(State state) {
		return state.lock().expiresAt() - state.now();
	}

	private long evalNumber(String script, List<String> keys, String... args) {
		Long reply = this.redis.eval(this.scripts.get(script), ScriptOutputType.INTEGER, keys.toArray(new String[0]),
				args);
		return reply;
	}

	private static String ms(long modelMillis) {
		return Long.toString(modelMillis * SCALE);
	}

	private static String flag(boolean value) {
		return value ? "1" : "0";
	}

	static void same(String where, String what, Object expected, Object actual) {
		check(where, Objects.equals(expected, actual), "%s %s, the model's %s", what, actual, expected);
	}

	static void check(String where, boolean condition, String message, Object... args) {
		if (!condition) {
			throw new AssertionError(where + ": " + message.formatted(args));
		}
	}

	/**
	 * The model's tokens (and fencing clock values) against Redis': the same value must
	 * stand for the same value, and their order must be the same.
	 */
	static final class Tokens {

		private final TreeMap<Long, Long> realByModel = new TreeMap<>();

		void check(String where, String what, long model, long real) {
			Long known = this.realByModel.get(model);
			if (known != null) {
				ScriptReplay.check(where, known == real, "%s is %d, where the model's %d was %d before", what, real,
						model, known);
				return;
			}
			Map.Entry<Long, Long> below = this.realByModel.lowerEntry(model);
			Map.Entry<Long, Long> above = this.realByModel.higherEntry(model);
			ScriptReplay.check(where, below == null || below.getValue() < real,
					"%s is %d, not above %d as the model's %d is above %d", what, real,
					(below != null) ? below.getValue() : null, model, (below != null) ? below.getKey() : null);
			ScriptReplay.check(where, above == null || above.getValue() > real,
					"%s is %d, not below %d as the model's %d is below %d", what, real,
					(above != null) ? above.getValue() : null, model, (above != null) ? above.getKey() : null);
			this.realByModel.put(model, real);
		}

	}

}
