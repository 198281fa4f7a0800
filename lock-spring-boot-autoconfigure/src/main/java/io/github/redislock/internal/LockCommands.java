package io.github.redislock.internal;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.function.Supplier;

import org.springframework.core.NestedExceptionUtils;
import org.springframework.lang.Nullable;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.RedisOperations;
import org.springframework.data.redis.core.SessionCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import io.github.redislock.RedisLockException;

/**
 * The round trips to Redis, each one script or command. Turns client exceptions into
 * {@link RedisLockException} naming the lock, and makes every write safe against
 * interrupts: a pending interrupt must not cancel a command that Redis would still run,
 * and an interrupt that lands during the round trip leaves the outcome unknown, so it is
 * read back from Redis.
 */
final class LockCommands {

	private final StringRedisTemplate redis;

	@Nullable
	private final ReplicaAcknowledgement acknowledgement;

	LockCommands(StringRedisTemplate redis, @Nullable ReplicaAcknowledgement acknowledgement) {
		this.redis = redis;
		this.acknowledgement = acknowledgement;
	}

	/**
	 * Runs the acquire script.
	 * @param holdsBefore this owner's hold count before the call, used to read back an
	 * interrupted outcome
	 * @return the fencing token (> 0), or minus the holder's remaining lease, or 0 when
	 * that is unknown
	 */
	long acquire(LockKeys keys, String owner, long leaseMillis, int holdsBefore) {
		// a re-entry changes no ownership, so a failover cannot turn it into a double
		// grant: it needs no acknowledgement
		if (this.acknowledgement != null && holdsBefore == 0) {
			ReplicaAcknowledgement acknowledgement = this.acknowledgement;
			// interrupted, it is unknown whether the replicas acknowledged: give the lock
			// back rather than hold one a failover could lose
			return writeThenReconcile(keys, owner, "acquire",
					() -> this.redis.execute(acknowledgedAcquire(keys, owner, leaseMillis, acknowledgement)),
					(count, token) -> {
						if (count == 1) {
							unlockScript(keys, owner, 1);
						}
						return 0L;
					});
		}
		return writeThenReconcile(keys, owner, "acquire", () -> lockScript(keys, owner, leaseMillis, holdsBefore),
				(count, token) -> (count == holdsBefore + 1) ? token : 0L);
	}

	private Long lockScript(LockKeys keys, String owner, long leaseMillis, int holdsBefore) {
		return this.redis.execute(LockScripts.LOCK, keys.lockAndFence(), Long.toString(leaseMillis), owner,
				Integer.toString(holdsBefore));
	}

	private Long unlockScript(LockKeys keys, String owner, int holdsBefore) {
		return this.redis.execute(LockScripts.UNLOCK, keys.lockOnly(), owner, keys.channel(),
				Integer.toString(holdsBefore));
	}

	// The script and the WAIT on one bound connection: WAIT counts that connection's own
	// writes. An acquisition that is not acknowledged, or whose WAIT fails, is released
	// again, so that nothing is left held that no hold of this client knows of.
	private SessionCallback<Long> acknowledgedAcquire(LockKeys keys, String owner, long leaseMillis,
			ReplicaAcknowledgement acknowledgement) {
		return new SessionCallback<>() {

			@Override
			public <K, V> Long execute(RedisOperations<K, V> operations) {
				Long token = lockScript(keys, owner, leaseMillis, 0);
				if (token == null || token <= 0) {
					return token;
				}
				try {
					acknowledgement.require(LockCommands.this.redis
						.execute((RedisCallback<Long>) (connection) -> acknowledgement.waitFor(connection, keys)));
				}
				catch (RuntimeException ex) {
					unlockScript(keys, owner, 1);
					throw ex;
				}
				return token;
			}

		};
	}

	/**
	 * Runs the release script.
	 * @param holdsBefore this owner's hold count before the call
	 * @return holds left, 0 when the lock became free, -1 when this owner held nothing
	 */
	long release(LockKeys keys, String owner, int holdsBefore) {
		for (;;) {
			Long left = writeThenReconcile(keys, owner, "release", () -> unlockScript(keys, owner, holdsBefore),
					(count, token) -> (count == holdsBefore - 1) ? (long) count : null);
			if (left != null) {
				return left;
			}
			// interrupted before Redis ran it: the hold is unchanged, so release again
		}
	}

	boolean forceRelease(LockKeys keys) {
		Long freed = call(keys, "force-unlock",
				() -> this.redis.execute(LockScripts.FORCE_UNLOCK, keys.lockOnly(), keys.channel()));
		return freed != null && freed == 1L;
	}

	/**
	 * Renews the given watchdog holds (all in one slot); returns those no longer held.
	 */
	List<Hold> renew(List<Hold> holds, long leaseMillis) {
		List<String> keys = new ArrayList<>(holds.size());
		Object[] args = new Object[holds.size() + 1];
		args[0] = Long.toString(leaseMillis);
		for (int i = 0; i < holds.size(); i++) {
			keys.add(holds.get(i).keys().lockKey());
			args[i + 1] = holds.get(i).owner();
		}
		List<?> lostPositions = this.redis.execute(LockScripts.RENEW, keys, args);
		List<Hold> lost = new ArrayList<>();
		if (lostPositions != null) {
			for (Object position : lostPositions) {
				lost.add(holds.get(((Number) position).intValue() - 1));
			}
		}
		return lost;
	}

	boolean exists(LockKeys keys) {
		Boolean exists = call(keys, "read", () -> this.redis.hasKey(keys.lockKey()));
		return Boolean.TRUE.equals(exists);
	}

	/** The lock's hash and its PTTL, in one pipelined round trip. */
	LockState state(LockKeys keys) {
		List<Object> replies = call(keys, "read",
				() -> this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
					byte[] key = keys.lockKey().getBytes(StandardCharsets.UTF_8);
					connection.hashCommands().hGetAll(key);
					connection.keyCommands().pTtl(key);
					return null;
				}));
		Map<String, Integer> holders = new TreeMap<>();
		Long token = null;
		if (replies.get(0) instanceof Map<?, ?> hash) {
			for (Map.Entry<?, ?> field : hash.entrySet()) {
				if ("token".equals(field.getKey())) {
					token = Long.valueOf(field.getValue().toString());
				}
				else {
					holders.put(field.getKey().toString(), Integer.valueOf(field.getValue().toString()));
				}
			}
		}
		long ttl = (replies.get(1) instanceof Number number) ? number.longValue() : -2;
		return new LockState(keys.name(), keys.lockKey(), holders, token, ttl);
	}

	int holdCount(LockKeys keys, String owner) {
		Object count = call(keys, "read", () -> this.redis.opsForHash().get(keys.lockKey(), owner));
		return (count != null) ? Integer.parseInt(count.toString()) : 0;
	}

	long remainingLeaseMillis(LockKeys keys) {
		Long ttl = call(keys, "read", () -> this.redis.getExpire(keys.lockKey(), TimeUnit.MILLISECONDS));
		return (ttl != null) ? ttl : -2;
	}

	/** PTTL of each key, pipelined: one round trip however many keys. */
	List<Long> remainingLeaseMillis(List<String> lockKeys) {
		if (lockKeys.isEmpty()) {
			return List.of();
		}
		List<Object> ttls = this.redis.executePipelined((RedisCallback<Object>) (connection) -> {
			for (String key : lockKeys) {
				connection.keyCommands().pTtl(key.getBytes(StandardCharsets.UTF_8));
			}
			return null;
		});
		return ttls.stream().map((ttl) -> (ttl instanceof Number number) ? number.longValue() : -2L).toList();
	}

	/**
	 * Runs a write with the interrupt status cleared, so a pending interrupt does not
	 * cancel it, and restores the status afterwards. If an interrupt lands during the
	 * round trip, the client gives up waiting for the answer although Redis runs the
	 * command; the outcome is then read back and mapped by {@code readBack} (which
	 * returns null when the write did not happen).
	 */
	private Long writeThenReconcile(LockKeys keys, String owner, String operation, Supplier<Long> write,
			ReadBack readBack) {
		boolean interrupted = Thread.interrupted();
		try {
			return call(keys, operation, write);
		}
		catch (RedisLockException ex) {
			if (!isInterruption(ex)) {
				throw ex;
			}
			interrupted = true;
			return readBackUninterruptibly(keys, owner, operation, readBack);
		}
		finally {
			if (interrupted) {
				Thread.currentThread().interrupt();
			}
		}
	}

	private Long readBackUninterruptibly(LockKeys keys, String owner, String operation, ReadBack readBack) {
		for (;;) {
			Thread.interrupted();
			try {
				List<Object> state = call(keys, operation,
						() -> this.redis.opsForHash().multiGet(keys.lockKey(), List.of(owner, "token")));
				int count = (state.get(0) != null) ? Integer.parseInt(state.get(0).toString()) : 0;
				long token = (state.get(1) != null) ? Long.parseLong(state.get(1).toString()) : 0;
				return readBack.apply(count, token);
			}
			catch (RedisLockException ex) {
				if (!isInterruption(ex)) {
					throw ex;
				}
			}
		}
	}

	private <T> T call(LockKeys keys, String operation, Supplier<T> command) {
		try {
			return command.get();
		}
		catch (RuntimeException ex) {
			// DataAccessException mostly; Lettuce's own exceptions escape translation on
			// some paths
			throw new RedisLockException("Could not " + operation + " lock '" + keys.name() + "' (key '"
					+ keys.lockKey() + "'): " + NestedExceptionUtils.getMostSpecificCause(ex).getMessage(), ex);
		}
	}

	/**
	 * Whether Redis refused the command because the lock's cluster slot is being migrated
	 * and not all its keys are on one node yet ({@code TRYAGAIN}): the command did not
	 * run, and will once the migration is over.
	 */
	static boolean isSlotMigrating(Throwable ex) {
		return anyCause(ex, (cause) -> cause.getMessage() != null && cause.getMessage().startsWith("TRYAGAIN"));
	}

	private static boolean isInterruption(Throwable ex) {
		return anyCause(ex, (cause) -> cause instanceof InterruptedException
				|| cause.getClass().getSimpleName().contains("Interrupted"));
	}

	private static boolean anyCause(Throwable ex, Predicate<Throwable> test) {
		for (Throwable cause = ex; cause != null; cause = cause.getCause()) {
			if (test.test(cause)) {
				return true;
			}
		}
		return false;
	}

	@FunctionalInterface
	interface ReadBack {

		/**
		 * Maps the owner's hold count and the lock's token after the write to its result,
		 * or null.
		 */
		Long apply(int holdCount, long token);

	}

}
