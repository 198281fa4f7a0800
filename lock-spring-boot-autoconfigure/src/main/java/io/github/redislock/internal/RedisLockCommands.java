package io.github.redislock.internal;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.core.script.RedisScript;

import io.github.redislock.RedisLockException;

/**
 * The writes of the engine, each one round trip run through {@link RedisCalls}: bounded
 * by the lock command timeout, safe against interrupts, failures turned into
 * {@link RedisLockException} naming the lock. A call whose answer did not come throws
 * {@link io.github.redislock.LockOutcomeUnknownException}. What a command means is its
 * {@link LockKind}'s business; this class adds what every kind shares: time budgets,
 * replica acknowledgement, lease renewal and forcing a lock open. Besides the
 * {@link LockCommands} of the in-JVM structures, it renews waiters' places
 * ({@link #keepAlive}) and learns how releases are announced ({@link #publishWith}).
 */
final class RedisLockCommands implements LockCommands {

	private final RedisCalls calls;

	@Nullable private final ReplicaAcknowledgement acknowledgement;

	private final long yieldMillis;

	// known once the client has asked its Cluster whether it takes SPUBLISH (at once on
	// other topologies): until then, commands that announce wait for the answer, since
	// waiters of other clients may already listen the sharded way and would not hear a
	// classic announcement
	private final CompletableFuture<PublishMode> publishMode = new CompletableFuture<>();

	/**
	 * @param yieldMillis how long a lock freed while another client waits stays reserved
	 * for the other clients (see {@link LocalRun}), 0 to free it for anybody
	 */
	RedisLockCommands(RedisCalls calls, @Nullable ReplicaAcknowledgement acknowledgement, long yieldMillis) {
		this.calls = calls;
		this.acknowledgement = acknowledgement;
		this.yieldMillis = yieldMillis;
	}

	@Override
	public long timeoutMillis() {
		return this.calls.timeoutMillis();
	}

	/** Announce releases this way; told once. */
	void publishWith(PublishMode mode) {
		this.publishMode.complete(mode);
	}

	// the command, once the publish mode is known: at once, but for the first
	// milliseconds of a client on a Cluster
	private <T> CompletionStage<T> announcing(Function<PublishMode, ? extends CompletionStage<T>> command) {
		PublishMode mode = this.publishMode.getNow(null);
		return (mode != null) ? command.apply(mode) : this.publishMode.thenCompose(command);
	}

	@Override
	public long yieldMillis() {
		return this.yieldMillis;
	}

	@Override
	public LockReply acquire(LockKeys keys, Owner owner, Lease lease, int holdsBefore, int tokens, boolean waits,
			long budgetNanos) {
		// a re-entry changes no ownership, so a failover cannot turn it into a double
		// grant: it needs no acknowledgement
		ReplicaAcknowledgement acknowledgement = (holdsBefore == 0) ? this.acknowledgement : null;
		long extra = (acknowledgement != null) ? acknowledgement.timeoutMillis() : 0;
		return this.calls.call(() -> describe("acquire", keys), extra, budgetNanos, (redis) -> {
			CompletionStage<LockReply> reply = keys.kind()
				.acquire(redis, keys, owner, lease, holdsBefore, tokens, waits);
			return (acknowledgement != null)
					? reply.thenCompose((granted) -> acknowledged(redis, keys, owner, granted, acknowledgement))
					: reply;
		});
	}

	@Override
	public CompletableFuture<LockReply> acquireAsync(LockKeys keys, Owner owner, Lease lease, int tokens, boolean waits,
			long budgetNanos) {
		ReplicaAcknowledgement acknowledgement = this.acknowledgement;
		long extra = (acknowledgement != null) ? acknowledgement.timeoutMillis() : 0;
		return this.calls.callAsync(() -> describe("acquire", keys), extra, budgetNanos, (redis) -> {
			CompletionStage<LockReply> reply = keys.kind().acquire(redis, keys, owner, lease, 0, tokens, waits);
			return (acknowledgement != null)
					? reply.thenCompose((granted) -> acknowledged(redis, keys, owner, granted, acknowledgement))
					: reply;
		});
	}

	// The WAIT goes on the connection that ran the script: it counts that connection's
	// writes. An acquisition that is not acknowledged, or whose WAIT fails, is released
	// again, so that nothing is left held that no hold of this client knows of.
	private CompletionStage<LockReply> acknowledged(RedisClusterAsyncCommands<byte[], byte[]> redis, LockKeys keys,
			Owner owner, LockReply reply, ReplicaAcknowledgement acknowledgement) {
		if (!(reply instanceof LockReply.Granted granted)) {
			return CompletableFuture.completedFuture(reply);
		}
		return acknowledgement.waitFor(redis, keys).handle((acknowledged, failure) -> {
			if (failure == null && acknowledgement.isEnough(acknowledged)) {
				return CompletableFuture.completedFuture(reply);
			}
			RedisFailures.Refused refusal = (failure == null) ? acknowledgement.refusal(acknowledged)
					: new RedisFailures.Refused("waiting for replicas failed: " + failure.getMessage(), failure);
			return announcing((mode) -> keys.kind()
				.release(redis, keys, Release.last(new Grant(owner, granted.fencingToken())), 0, mode))
				.<LockReply>thenCompose((released) -> CompletableFuture.failedFuture(refusal));
		}).thenCompose((next) -> next);
	}

	@Override
	public LockReply release(LockKeys keys, Release release) {
		long sentAt = System.nanoTime();
		LockReply reply = this.calls.call(() -> describe("release", keys),
				(redis) -> announcing((mode) -> keys.kind().release(redis, keys, release, this.yieldMillis, mode)));
		if (reply != LockReply.NOT_HELD) {
			return reply;
		}
		String what = describe("release", keys);
		return this.calls.await(what, ranBeforeItWasResent(what, reply, sentAt),
				this.calls.deadline(RedisCalls.NO_LIMIT));
	}

	@Override
	public CompletableFuture<LockReply> releaseAsync(LockKeys keys, Release release) {
		long sentAt = System.nanoTime();
		return this.calls
			.callAsync(() -> describe("release", keys), 0, RedisCalls.NO_LIMIT,
					(redis) -> announcing((mode) -> keys.kind().release(redis, keys, release, this.yieldMillis, mode)))
			.thenCompose((reply) -> (reply != LockReply.NOT_HELD) ? CompletableFuture.completedFuture(reply)
					: ranBeforeItWasResent(describe("release", keys), reply, sentAt));
	}

	// Lettuce sends a command again on the connection it reconnected when the connection
	// was lost before the answer came: a release that Redis had run then runs twice, and
	// the second finds the owner gone ("not held"), though it was this release that freed
	// the lock, not a lease that ran out. So "not held" from the very server instance the
	// release first went to, over a connection lost meanwhile, is a release; from another
	// instance (Redis restarted without the lock, a replica promoted) it is a lost lock.
	// What it would misread is a lease that ran out, or a force-unlock, while that very
	// release was on its way; the watchdog and the fencing token still tell of those.
	private CompletableFuture<LockReply> ranBeforeItWasResent(String what, LockReply reply, long sentAt) {
		return this.calls.resentToTheSameServer(what, sentAt)
			.thenApply((resent) -> resent ? LockReply.released(0L) : reply);
	}

	@Override
	public LockReply continueRun(LockKeys keys, Grant holder, int tokens, Lease lease) {
		LockKind.PassesLocally kind = passing(keys);
		return this.calls.call(() -> describe("pass on", keys), (redis) -> announcing(
				(mode) -> kind.continueRun(redis, keys, holder, tokens, lease, this.yieldMillis, true, mode)));
	}

	@Override
	public CompletableFuture<LockReply> continueRunAhead(LockKeys keys, Grant holder, int tokens, Lease lease) {
		LockKind.PassesLocally kind = passing(keys);
		return this.calls.callAsync(() -> describe("pass on", keys), 0, RedisCalls.NO_LIMIT, (redis) -> announcing(
				(mode) -> kind.continueRun(redis, keys, holder, tokens, lease, this.yieldMillis, false, mode)));
	}

	// only a hold of a kind that passes locally joins a local run (see Holds#add)
	private static LockKind.PassesLocally passing(LockKeys keys) {
		if (keys.kind() instanceof LockKind.PassesLocally kind) {
			return kind;
		}
		throw new IllegalStateException("The " + keys + " is not passed among owners of one client");
	}

	@Override
	public CompletableFuture<?> withdrawAsync(LockKind.MarksWaiters kind, LockKeys keys, Owner owner) {
		return this.calls.callAsync(() -> describe("withdraw a waiter of", keys), 0, RedisCalls.NO_LIMIT,
				(redis) -> announcing((mode) -> kind.withdraw(redis, keys, owner, mode)));
	}

	@Override
	public void withdraw(LockKind.MarksWaiters kind, LockKeys keys, Owner owner, long budgetNanos) {
		this.calls.call(() -> describe("withdraw a waiter of", keys), 0, budgetNanos,
				(redis) -> announcing((mode) -> kind.withdraw(redis, keys, owner, mode)));
	}

	/**
	 * Renews the places of these waiting owners of the lock; returns those no longer
	 * waiting in Redis.
	 */
	List<String> keepAlive(LockKind.KeepsWaitersAlive kind, LockKeys keys, List<String> owners) {
		List<Object> missing = this.calls.call(() -> describe("renew " + owners.size() + " waiter(s) of", keys),
				(redis) -> announcing((mode) -> kind.keepAlive(redis, keys, owners, mode)));
		List<String> gone = new ArrayList<>();
		if (missing != null) {
			for (Object owner : missing) {
				gone.add((owner instanceof byte[] bytes) ? new String(bytes, java.nio.charset.StandardCharsets.UTF_8)
						: String.valueOf(owner));
			}
		}
		return gone;
	}

	@Override
	public boolean extend(LockKeys keys, Owner owner, long leaseMillis) {
		return this.calls.call(() -> describe("extend the lease of", keys),
				(redis) -> announcing((mode) -> keys.kind().extend(redis, keys, owner, leaseMillis, mode)));
	}

	@Override
	public boolean forceRelease(LockKeys keys) {
		return Boolean.TRUE.equals(this.calls.call(() -> describe("force-unlock", keys),
				(redis) -> announcing((mode) -> keys.kind().forceRelease(redis, keys, mode))));
	}

	// Each kind renews its holds with its renewal script (kinds with one layout share
	// one); the scripts of a batch with several go out together, pipelined, so that a
	// renewal stays one round trip.
	@Override
	@SuppressWarnings("rawtypes")
	public List<Hold> renew(List<Hold> holds, long leaseMillis) {
		Map<RedisScript<List>, List<Hold>> byScript = new LinkedHashMap<>();
		for (Hold hold : holds) {
			byScript.computeIfAbsent(hold.keys().kind().renewal(), (script) -> new ArrayList<>()).add(hold);
		}
		List<List<Hold>> groups = List.copyOf(byScript.values());
		List<List<Object>> lostPositions = this.calls.call(() -> "renew " + holds.size() + " lock lease(s)",
				(redis) -> {
					List<CompletableFuture<List<Object>>> replies = new ArrayList<>(groups.size());
					for (List<Hold> group : groups) {
						replies.add(renew(redis, group, leaseMillis).toCompletableFuture());
					}
					return CompletableFuture.allOf(replies.toArray(CompletableFuture[]::new))
						.thenApply((done) -> replies.stream().map(CompletableFuture::join).toList());
				});
		List<Hold> lost = new ArrayList<>();
		for (int g = 0; g < groups.size(); g++) {
			List<Object> positions = lostPositions.get(g);
			if (positions != null) {
				for (Object position : positions) {
					lost.add(groups.get(g).get(((Number) position).intValue() - 1));
				}
			}
		}
		return lost;
	}

	// holds whose kinds renew with one script, in one call
	private static CompletionStage<List<Object>> renew(RedisClusterAsyncCommands<byte[], byte[]> redis,
			List<Hold> holds, long leaseMillis) {
		List<String> keys = new ArrayList<>(holds.size());
		byte[][] args = new byte[holds.size() + 1][];
		args[0] = ScriptCalls.number(leaseMillis);
		for (int i = 0; i < holds.size(); i++) {
			Hold hold = holds.get(i);
			LockKind kind = hold.keys().kind();
			kind.addRenewKeys(hold.keys(), keys);
			args[i + 1] = ScriptCalls.bytes(kind.field(hold.redisOwner()));
		}
		return ScriptCalls.script(redis, holds.get(0).keys().kind().renewal(), ScriptOutputType.MULTI,
				ScriptCalls.keys(keys), args);
	}

	static String describe(String operation, LockKeys keys) {
		return operation + " lock '" + keys.name() + "' (key '" + keys.lockKey() + "')";
	}

}
