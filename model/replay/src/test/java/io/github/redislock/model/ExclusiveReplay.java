package io.github.redislock.model;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import io.github.redislock.model.ExclusiveTrace.Lock;
import io.github.redislock.model.ExclusiveTrace.State;
import io.github.redislock.model.ExclusiveTrace.Step;
import io.github.redislock.model.RedisSide.ModelKey;

import static io.github.redislock.model.Checks.check;
import static io.github.redislock.model.Checks.flag;
import static io.github.redislock.model.Checks.ms;
import static io.github.redislock.model.Checks.same;
import static io.github.redislock.model.RedisSide.CLOCK_KEY;

/**
 * Replays traces of model/exclusive_lock.qnt against the exclusive lock's Lua scripts
 * (see {@link Replay}): each step runs its script with the keys and arguments
 * ExclusiveLock passes, and its reply, what it published on the lock's channel and the
 * lock hash (every field, its PTTL) must be the model's.
 */
final class ExclusiveReplay extends Replay<State> {

	static final String LOCK_KEY = "model:lock";

	static final String CHANNEL = LOCK_KEY + ":released";

	/**
	 * A replay.
	 * @param replaced scripts to run instead of the library's, by name ("unlock")
	 */
	ExclusiveReplay(ReplayRedis redis, Map<String, String> replaced) {
		super(redis, Map.of(CHANNEL, ""), List.of("lock", "unlock", "withdraw", "extend", "renew", "pass"), replaced);
		List<String> lockAndClock = List.of(LOCK_KEY, CLOCK_KEY);
		script("acquire", (where, before, after) -> {
			Step step = after.last();
			checkAcquired(where, step.reply(), eval("lock", lockAndClock, ms(step.lease()), step.owner(),
					Long.toString(step.holds()), Long.toString(step.reserve()), flag(step.waits())));
		});
		Run<State> release = (where, before, after) -> {
			Step step = after.last();
			same(where, "reply", step.reply(),
					eval("unlock", List.of(LOCK_KEY), step.owner(), "0", Long.toString(step.holds()), ms(step.keep()),
							ms(step.yieldMs()), flag(step.othersOnly()), CHANNEL, "0", grant(where, step)));
		};
		script("release", release);
		script("staleRelease", release);
		script("withdraw", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("withdraw", List.of(LOCK_KEY), after.last().owner(), "0", CHANNEL)));
		script("extend", (where, before, after) -> same(where, "reply", after.last().reply(),
				eval("extend", List.of(LOCK_KEY), after.last().owner(), ms(after.last().lease()))));
		script("renew", (where, before, after) -> checkRenewed(where, after.last().reply(),
				evalList("renew", List.of(LOCK_KEY), ms(after.last().lease()), after.last().owner())));
		script("pass", (where, before, after) -> {
			Step step = after.last();
			long reply = eval("pass", lockAndClock, step.owner(), Long.toString(step.reserve()), "0", ms(step.lease()),
					ms(step.yieldMs()), flag(step.giveUp()), CHANNEL, grant(where, step));
			if (step.reply() > 0) {
				check(where, reply > 0, "reply %d, the model's a token (%d)", reply, step.reply());
				this.redis.tokens().check(where, "token", step.reply(), reply);
			}
			else {
				same(where, "reply", step.reply(), reply);
			}
		});
	}

	// the real token of the grant the model's step names
	private String grant(String where, Step step) {
		return Long.toString(this.redis.tokens().real(where, step.grant()));
	}

	@Override
	protected List<ModelKey> keys(State state) {
		return List.of(new ModelKey(LOCK_KEY, state.lock().exists(), state.lock().expiresAt() - state.now()));
	}

	@Override
	protected List<String> published(State after) {
		return switch (after.last().published()) {
			case "" -> List.of();
			case "yielded" -> List.of("yielded:" + after.lock().yieldedBy());
			default -> List.of(after.last().published());
		};
	}

	@Override
	protected void checkKeys(String where, State expected) {
		Lock lock = expected.lock();
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
		Map<String, String> token = this.redis.checkHash(where, keys(expected).get(0), wanted, "token");
		if (lock.exists()) {
			this.redis.checkToken(where, "token", lock.token(), token.get("token"));
		}
	}

}
