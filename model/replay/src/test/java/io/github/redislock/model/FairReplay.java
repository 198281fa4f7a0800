package io.github.redislock.model;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.model.FairTrace.Lock;
import io.github.redislock.model.FairTrace.Queue;
import io.github.redislock.model.FairTrace.State;
import io.github.redislock.model.FairTrace.Step;
import io.github.redislock.model.RedisSide.ModelKey;

import static io.github.redislock.model.Checks.flag;
import static io.github.redislock.model.Checks.ms;
import static io.github.redislock.model.Checks.same;
import static io.github.redislock.model.RedisSide.CLOCK_KEY;

/**
 * Replays traces of model/fair_lock.qnt against the fair lock's Lua scripts (see
 * {@link Replay}): each step runs its script with the keys and arguments FairLock passes,
 * and its reply, what it published and the Redis state after it (the hash, the queue with
 * its tickets, the heartbeats with their scores, the keys' remaining times) must be the
 * model's. The heartbeats' scores are absolute times of the server's clock (ms), set and
 * checked as what is left of the model's.
 */
final class FairReplay extends Replay<State> {

	// FairLock's ALIVE_MILLIS, RECHECK_MILLIS, HELD_SLEEP_MILLIS as the model has them
	static final long ALIVE_MS = 6;

	static final long RECHECK_MS = 2;

	static final long HELD_SLEEP_MS = 30;

	static final String LOCK_KEY = "model:fair";

	static final String QUEUE_KEY = LOCK_KEY + ":queue";

	static final String ALIVE_KEY = LOCK_KEY + ":alive";

	static final String CHANNEL = LOCK_KEY + ":released";

	/**
	 * A replay.
	 * @param replaced scripts to run instead of the library's, by name ("fair-lock")
	 */
	FairReplay(ReplayRedis redis, Map<String, String> replaced) {
		super(redis, Map.of(CHANNEL, ""),
				List.of("fair-lock", "fair-unlock", "fair-withdraw", "fair-heartbeat", "extend", "renew"), replaced);
		List<String> lockAndQueue = List.of(LOCK_KEY, QUEUE_KEY);
		List<String> queued = List.of(LOCK_KEY, QUEUE_KEY, ALIVE_KEY);
		script("acquire", (where, before, after) -> {
			Step step = after.last();
			checkAcquired(where, step.reply(),
					eval("fair-lock", List.of(LOCK_KEY, QUEUE_KEY, ALIVE_KEY, CLOCK_KEY), ms(step.lease()),
							step.owner(), Long.toString(step.holds()), flag(step.waits()), ms(ALIVE_MS), ms(RECHECK_MS),
							ms(HELD_SLEEP_MS)));
		});
		script("release", (where, before, after) -> {
			Step step = after.last();
			same(where, "reply", step.reply(), eval("fair-unlock", lockAndQueue, step.owner(), "0",
					Long.toString(step.holds()), ms(step.keep()), "0", CHANNEL));
		});
		script("withdraw", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("fair-withdraw", queued, after.last().owner(), "0", CHANNEL)));
		script("heartbeat", (where, before, after) -> {
			List<String> args = new ArrayList<>(List.of(ms(ALIVE_MS), "0", CHANNEL));
			args.addAll(after.last().owners());
			same(where, "reply (the owners no longer queued)", after.last().missing(),
					evalList("fair-heartbeat", queued, args.toArray(new String[0])));
		});
		script("extend", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("extend", List.of(LOCK_KEY), after.last().owner(), ms(after.last().lease()))));
		script("renew", (where, before, after) -> checkRenewed(where, after.last().reply(),
				evalList("renew", List.of(LOCK_KEY), ms(after.last().lease()), after.last().owner())));
		local("crash");
	}

	@Override
	protected List<ModelKey> keys(State state) {
		long queueLeft = state.queue().expiresAt() - state.now();
		return List.of(new ModelKey(LOCK_KEY, state.lock().exists(), state.lock().expiresAt() - state.now()),
				new ModelKey(QUEUE_KEY, state.queue().exists(), queueLeft),
				new ModelKey(ALIVE_KEY, state.queue().exists(), queueLeft));
	}

	// each waiter's heartbeat score: the server's time plus the model's remaining time,
	// or long past when the model's waiter counts as gone
	@Override
	protected void setTimes(State after) {
		this.redis.setScores(ALIVE_KEY, after.queue().alive(), after.now());
	}

	@Override
	protected List<String> published(State after) {
		return after.last().published().isEmpty() ? List.of() : List.of(after.last().published());
	}

	@Override
	protected void checkKeys(String where, State expected) {
		List<ModelKey> keys = keys(expected);
		Lock lock = expected.lock();
		Map<String, String> wanted = new TreeMap<>();
		lock.holds().forEach((owner, count) -> wanted.put(owner, Long.toString(count)));
		if (lock.holdAtLeast()) {
			wanted.put("hold-at-least", "1");
		}
		Map<String, String> token = this.redis.checkHash(where, keys.get(0), wanted, "token");
		if (lock.exists()) {
			this.redis.checkToken(where, "token", lock.token(), token.get("token"));
		}
		Queue queue = expected.queue();
		same(where, "the queue (owner=ticket)", new TreeMap<>(queue.tickets()), this.redis.scores(QUEUE_KEY));
		this.redis.checkPttl(where, keys.get(1));
		this.redis.checkTimes(where, keys.get(2), queue.alive(), expected.now());
	}

}
