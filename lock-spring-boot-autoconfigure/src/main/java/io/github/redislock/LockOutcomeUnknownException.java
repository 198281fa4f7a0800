package io.github.redislock;

/**
 * Thrown when a lock command was sent to Redis but its answer never came: Redis did not
 * answer within {@code redis-lock.command-timeout} (stalled, overloaded, partitioned), or
 * the connection was lost (reset, closed) while the command was on its way. Redis may or
 * may not have run the command. The message names the lock, its key, the cause and where
 * Redis was; catching {@link RedisLockException} catches this too.
 *
 * <p>
 * What it means for the lock:
 * <ul>
 * <li>an <em>acquisition</em> that fails this way may have been granted after all. The
 * caller holds nothing (do not unlock); the client releases such a grant in the
 * background as soon as Redis answers again, and until then the lock frees itself when
 * its lease ends. Trying again is safe;</li>
 * <li>a <em>release</em> that fails this way may or may not have freed the lock: the
 * client releases it again in the background once Redis answers, and the lock frees
 * itself when its lease ends at the latest;</li>
 * <li>a <em>renewal</em> that fails this way is retried by the watchdog; a lease that
 * ends meanwhile is reported as lost.</li>
 * </ul>
 * A failure before anything was sent (no connection could be made: refused, timed out) is
 * a plain {@link RedisLockException}: then the lock's state did not change.
 *
 * @since 0.1.0
 */
public class LockOutcomeUnknownException extends RedisLockException {

	/**
	 * Creates an exception with a message naming the lock, its key and the cause.
	 * @param message what failed, and why the outcome is unknown
	 * @param cause the client library's exception (a timeout, a lost connection)
	 */
	public LockOutcomeUnknownException(String message, Throwable cause) {
		super(message, cause);
	}

}
