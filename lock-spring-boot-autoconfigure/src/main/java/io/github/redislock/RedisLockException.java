package io.github.redislock;

/**
 * Thrown when a lock operation could not be completed because Redis failed to answer
 * (connection refused or lost, command timeout) or refused the command (for example an
 * ACL that denies scripts). The message names the lock and its Redis key; the cause is
 * Spring Data Redis' exception.
 *
 * <p>
 * An acquire that fails this way holds nothing, or, if Redis ran the command but the
 * answer was lost, holds a lock that frees itself when its lease ends. That second case,
 * a command sent whose answer never came, is a {@link LockOutcomeUnknownException}, which
 * says what the client does about it; every other failure of a lock call to reach Redis
 * is this class itself. Both are caught as {@code RedisLockException}.
 *
 * @since 0.1.0
 */
public class RedisLockException extends RuntimeException {

	/**
	 * Creates an exception with a message naming the lock and key.
	 * @param message what failed
	 * @param cause the client library's exception
	 */
	public RedisLockException(String message, Throwable cause) {
		super(message, cause);
	}

}
