package io.github.redislock.model;

import java.util.List;
import java.util.Map;

import io.github.redislock.model.RedisSide.ModelKey;
import io.github.redislock.model.SemaphoreTrace.State;
import io.github.redislock.model.SemaphoreTrace.Step;

import static io.github.redislock.model.Checks.ms;
import static io.github.redislock.model.Checks.same;
import static io.github.redislock.model.RedisSide.CLOCK_KEY;

/**
 * Replays traces of model/semaphore.qnt against the semaphore's Lua scripts (see
 * {@link Replay}): each step runs its script with the keys and arguments SemaphoreLock
 * passes (a settlement runs the release script, as Settlements does), and its reply, what
 * it published and the sorted set after it (its members, each score as what is left of
 * the model's, the key's remaining time) must be the model's.
 * <p>
 * Each script runs in a millisecond of its own, so that of two scores the model has
 * equal, the one written later is the higher in Redis too, as the model orders them (a
 * release compares the highest score left with the released one's). Two scripts within
 * one millisecond would write equal scores, which the model leaves out.
 */
final class SemaphoreReplay extends Replay<State> {

	// the limit the model's callers pass
	static final String PERMITS = "2";

	static final String SEM_KEY = "model:sem";

	static final String CHANNEL = SEM_KEY + ":released";

	/**
	 * A replay.
	 * @param replaced scripts to run instead of the library's, by name
	 * ("semaphore-release")
	 */
	SemaphoreReplay(ReplayRedis redis, Map<String, String> replaced) {
		super(redis, Map.of(CHANNEL, ""), List.of("semaphore-acquire", "semaphore-pass", "semaphore-release",
				"semaphore-extend", "semaphore-renew"), replaced);
		List<String> sem = List.of(SEM_KEY);
		script("acquire", (where, before, after) -> {
			Step step = after.last();
			this.redis.nextMillisecond();
			checkAcquired(where, step.reply(), eval("semaphore-acquire", List.of(SEM_KEY, CLOCK_KEY), ms(step.lease()),
					step.handle(), PERMITS, Long.toString(step.reserve())));
		});
		script("pass", (where, before, after) -> {
			Step step = after.last();
			this.redis.nextMillisecond();
			long reply = eval("semaphore-pass", List.of(SEM_KEY, CLOCK_KEY), step.handle(),
					Long.toString(step.reserve()));
			if (step.reply() < 0) {
				same(where, "reply", step.reply(), reply);
			}
			else {
				checkAcquired(where, step.reply(), reply);
			}
		});
		Run<State> release = (where, before, after) -> {
			Step step = after.last();
			this.redis.nextMillisecond();
			same(where, "reply", step.reply(),
					eval("semaphore-release", sem, step.handle(), "0", ms(step.keep()), CHANNEL, "0"));
			if (!after.sem().exists()) {
				// PEXPIRE 1 when every member left has ended: gone within a millisecond
				this.redis.awaitGone(SEM_KEY);
			}
		};
		script("release", release);
		script("settle", release);
		script("extend", (where, before, after) -> {
			this.redis.nextMillisecond();
			same(where, "reply", after.last().reply(),
					eval("semaphore-extend", sem, after.last().handle(), ms(after.last().lease()), "0", CHANNEL));
		});
		script("renew", (where, before, after) -> {
			this.redis.nextMillisecond();
			checkRenewed(where, after.last().reply(),
					evalList("semaphore-renew", sem, ms(after.last().lease()), after.last().handle()));
		});
		local("giveUp");
		local("crash");
	}

	@Override
	protected List<ModelKey> keys(State state) {
		return List.of(new ModelKey(SEM_KEY, state.sem().exists(), state.sem().expiresAt() - state.now()));
	}

	@Override
	protected void setTimes(State after) {
		this.redis.setScores(SEM_KEY, after.sem().scores(), after.now());
	}

	@Override
	protected List<String> published(State after) {
		return after.last().published() ? List.of("released") : List.of();
	}

	@Override
	protected void checkKeys(String where, State expected) {
		this.redis.checkTimes(where, keys(expected).get(0), expected.sem().scores(), expected.now());
	}

}
