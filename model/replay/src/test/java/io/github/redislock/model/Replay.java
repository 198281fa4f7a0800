package io.github.redislock.model;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;

import io.github.redislock.internal.ScriptTexts;
import io.github.redislock.model.RedisSide.ModelKey;
import io.lettuce.core.ScriptOutputType;

import static io.github.redislock.model.Checks.check;
import static io.github.redislock.model.Checks.checkLease;
import static io.github.redislock.model.Checks.same;

/**
 * Replays a model's traces against a lock kind's Lua scripts on a real Redis: each step
 * runs its script with EVAL and the keys and arguments the kind's Java caller passes, and
 * its reply, what it published and the Redis state after it must be the model's. A kind
 * says, in a table by step kind, how to run each of its steps and check its reply, which
 * keys it has, what they must hold and what each script publishes; this class runs the
 * steps, checks the messages and the fencing clock, and leaves time, data loss, snapshots
 * and failovers to {@link RedisSide}, for every kind alike.
 * <p>
 * Time: one model millisecond is {@link Checks#SCALE} real ones, so that no key expires
 * while a trace replays (a trace takes well under a second); every remaining time Redis
 * reports must lie within {@link Checks#MARGIN} below the model's. Fencing tokens come
 * from Redis' own clock: model and real tokens must be in the same order
 * ({@link Tokens}), not equal.
 * <p>
 * Publishes: a connection subscribed to the kind's channels queues every message. After
 * each script the replay publishes a sentinel of its own and takes the messages up to it:
 * one connection's messages arrive in order, so these are exactly what the script
 * published, with no waiting on a hunch.
 *
 * @param <S> the kind's model state
 */
abstract class Replay<S extends Replay.ModelState> {

	protected final RedisSide redis;

	private final BlockingQueue<String> published;

	private final String sentinelChannel;

	private final String sentinelLabel;

	private final Map<String, String> scripts = new HashMap<>();

	private final Map<String, StepKind<S>> steps = new HashMap<>();

	private long sentinels;

	/**
	 * A replay.
	 * @param redis the Redis the scripts run on
	 * @param channels the kind's channels, each with the label its messages get ("" with
	 * one channel); the replay's sentinel goes to the first
	 * @param scriptNames the library's scripts the kind runs, by name ("fair-lock")
	 * @param replaced scripts to run instead of the library's, by name
	 */
	protected Replay(ReplayRedis redis, Map<String, String> channels, List<String> scriptNames,
			Map<String, String> replaced) {
		this.redis = new RedisSide(redis.commands());
		this.published = redis.listen(channels);
		Map.Entry<String, String> first = channels.entrySet().iterator().next();
		this.sentinelChannel = first.getKey();
		this.sentinelLabel = first.getValue();
		scriptNames.forEach((name) -> this.scripts.put(name, classpathScript(name)));
		this.scripts.putAll(replaced);
		this.steps.put("tick", new StepKind<>(false, (where, before, after) -> {
			this.redis.passTime(keys(after));
			setTimes(after);
		}));
		this.steps.put("dataLoss", new StepKind<>(false, (where, before, after) -> this.redis.commands().flushall()));
		this.steps.put("snapshot", new StepKind<>(false, (where, before, after) -> this.redis.snapshot(keys(after))));
		this.steps.put("failover", new StepKind<>(false, (where, before, after) -> {
			this.redis.failover(where, keys(after));
			setTimes(after);
		}));
	}

	/**
	 * The library's script of that name, from the auto-configuration jar, as the library
	 * loads it: behind the prelude every script begins with ({@link ScriptTexts}).
	 */
	static String classpathScript(String name) {
		return ScriptTexts.text(name + ".lua");
	}

	/** A step of the kind's that runs a script: its messages are checked after it. */
	protected final void script(String kind, Run<S> run) {
		this.steps.put(kind, new StepKind<>(true, run));
	}

	/** A step of the kind's that sends Redis nothing (the client's side only). */
	protected final void local(String kind) {
		this.steps.put(kind, new StepKind<>(false, (where, before, after) -> {
		}));
	}

	/** The kind's keys (the fencing clock aside) as the model has them in that state. */
	protected abstract List<ModelKey> keys(S state);

	/** Checks the kind's keys (the fencing clock aside) against the model's state. */
	protected abstract void checkKeys(String where, S expected);

	/** What the step that led to that state published, each labelled by its channel. */
	protected abstract List<String> published(S after);

	/**
	 * Sets the absolute times the kind keeps (scores, fields) after a tick or failover.
	 */
	protected void setTimes(S after) {
	}

	/**
	 * Replays one trace from an empty Redis.
	 * @throws AssertionError naming the trace, the step and what differs, at the first
	 * step where Redis and the model part
	 */
	final void replay(Trace<S> trace) {
		this.redis.reset();
		this.published.clear();
		List<S> states = trace.states();
		for (int i = 1; i < states.size(); i++) {
			S before = states.get(i - 1);
			S after = states.get(i);
			String where = "%s, step %d of %d (%s): %s".formatted(trace.name(), i, states.size() - 1,
					after.actionTaken(), after.last());
			StepKind<S> step = this.steps.get(after.stepKind());
			check(where, step != null, "a step the replay does not know");
			step.run().run(where, before, after);
			if (step.script()) {
				checkPublished(where, published(after));
			}
			checkKeys(where, after);
			this.redis.checkClock(where, after.clock());
		}
	}

	private void checkPublished(String where, List<String> expected) {
		String sentinel = "sentinel:" + (++this.sentinels);
		this.redis.commands().publish(this.sentinelChannel, sentinel);
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
			if (message.equals(this.sentinelLabel + sentinel)) {
				break;
			}
			messages.add(message);
		}
		same(where, "published", expected, messages);
	}

	/** Runs a script whose reply is a number. */
	protected final long eval(String script, List<String> keys, String... args) {
		Long reply = this.redis.commands()
			.eval(this.scripts.get(script), ScriptOutputType.INTEGER, keys.toArray(new String[0]), args);
		return reply;
	}

	/** Runs a script whose reply is a list. */
	protected final List<Object> evalList(String script, List<String> keys, String... args) {
		return this.redis.commands()
			.eval(this.scripts.get(script), ScriptOutputType.MULTI, keys.toArray(new String[0]), args);
	}

	/**
	 * An acquire script's reply: a token in the model's order when the model grants,
	 * minus the model's wait (a remaining time) when it refuses, else the model's number.
	 */
	protected final void checkAcquired(String where, long expected, long reply) {
		if (expected > 0) {
			check(where, reply > 0, "reply %d, the model grants (token %d)", reply, expected);
			this.redis.tokens().check(where, "token", expected, reply);
		}
		else if (expected < 0) {
			check(where, reply < 0, "reply %d, the model refuses (%d)", reply, expected);
			checkLease(where, "the refusal's wait", -expected, -reply);
		}
		else {
			same(where, "reply", expected, reply);
		}
	}

	/**
	 * A renewal of one hold: its reply lists the holds lost, [1] when the model's is 0.
	 */
	protected static void checkRenewed(String where, long expected, List<Object> lost) {
		same(where, "reply", (expected == 0) ? List.of() : List.of(1L), lost);
	}

	/** What every kind's model state tells the replay. */
	interface ModelState {

		/** The step that led here; its text names it and its arguments. */
		Object last();

		/** That step's kind: a key of the kind's table. */
		String stepKind();

		/** The action quint's --mbt metadata names, for messages. */
		String actionTaken();

		/** The model's time, abstract milliseconds. */
		long now();

		/** The fencing clock key, 0 when absent. */
		long clock();

	}

	/** How a step runs its script and checks its reply. */
	@FunctionalInterface
	interface Run<S> {

		void run(String where, S before, S after);

	}

	private record StepKind<S>(boolean script, Run<S> run) {

	}

}
