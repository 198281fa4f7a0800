package io.github.redislock.fencing;

/**
 * The store side of fencing: records a fencing token as the newest for a resource, or
 * refuses it because a newer one was recorded before. Call it inside a locked section, in
 * the same unit of work as the write it guards, with the token of the lock you hold:
 *
 * <pre class="code">
 * &#64;Transactional
 * &#64;DistributedLock(name = "invoice", key = "#id")
 * public void pay(long id) {
 *     guard.accept("invoice:" + id, locks.getLock("invoice:" + id).fencingToken());
 *     invoices.markPaid(id);
 * }
 * </pre>
 *
 * If it throws, the write must not happen (a transaction rolls back); if it returns,
 * every later call for the resource with a lower token throws.
 *
 * <h2>Implementing it for another store</h2>
 *
 * The check and the write must be one atomic step of the store, in the caller's unit of
 * work: a compare-and-set, never a read followed by a separate write, or a stale holder
 * slips in between. For example:
 * <ul>
 * <li>a relational database: a row per resource, updated {@code WHERE token <= ?} in the
 * caller's transaction ({@link JdbcFencingGuard});</li>
 * <li>Redis: one Lua script that compares and writes ({@link RedisFencedValues});</li>
 * <li>S3 or Google Cloud Storage: keep the token in the object's metadata; read the
 * object with its ETag (S3) or generation (GCS), refuse if its token is higher, and write
 * with {@code If-Match: <etag>} ({@code x-goog-if-generation-match}): a precondition
 * failure means someone wrote in between, so read again and decide again;</li>
 * <li>Kafka: a topic cannot refuse a message, so send the token in a header and let the
 * consumer, which owns the state, keep the highest token per key and drop (and report)
 * records whose token is lower.</li>
 * </ul>
 * Tokens of one lock name strictly increase, but not by one, and they are about 1.8
 * &times; 10<sup>15</sup>: store them as a 64-bit integer ({@code BIGINT}). Accept a
 * token equal to the highest seen: the holder that got it may write more than once. Throw
 * {@link StaleFencingTokenException} with the highest token seen when refusing.
 *
 * @since 0.1.0
 * @see io.github.redislock.RedisLock#fencingToken()
 * @see io.github.redislock.LockHandle#fencingToken()
 */
@FunctionalInterface
public interface FencingGuard {

	/**
	 * Records the token as the newest for the resource within the caller's atomic unit of
	 * work (a transaction, a conditional write), or throws because a higher one was
	 * recorded before.
	 * @param resource what is written to: usually the lock name, or the key or row the
	 * lock protects
	 * @param token the fencing token of the lock held for it
	 * @throws StaleFencingTokenException if a higher token was recorded for the resource
	 */
	void accept(String resource, long token);

}
