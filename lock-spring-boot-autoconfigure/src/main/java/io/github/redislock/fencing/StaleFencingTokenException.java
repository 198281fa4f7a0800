package io.github.redislock.fencing;

/**
 * Thrown when a store refuses a write because it has already accepted one for the same
 * resource with a higher fencing token. It means the lock this write was made under is no
 * longer this caller's: its lease ran out while the work went on (a long pause, a
 * partition), another holder took the lock and wrote with its newer token. Stop the work;
 * do not retry it with the same token, which will be refused again. To go on, acquire the
 * lock again (which gives a new token) and start from what the store holds now.
 *
 * <p>
 * Inside a {@code @Transactional} method it rolls the transaction back, as any
 * {@link RuntimeException} does, so nothing this holder wrote in it is committed.
 *
 * @since 0.1.0
 */
public class StaleFencingTokenException extends RuntimeException {

	private final String resource;

	private final long token;

	private final long highestSeen;

	/**
	 * Creates an exception for a refused write.
	 * @param resource what the write was to (a lock name, a key, a row)
	 * @param token the fencing token of the refused write
	 * @param highestSeen the highest token the store had accepted for the resource
	 */
	public StaleFencingTokenException(String resource, long token, long highestSeen) {
		super("Refused a write to '" + resource + "' with fencing token " + token + ": a write with the newer token "
				+ highestSeen + " was accepted before. The holder that got token " + token
				+ " lost its lock (its lease ended while it worked) and another holder has written since; stop this"
				+ " work and do not retry it with the same token (acquire the lock again for a new one)");
		this.resource = resource;
		this.token = token;
		this.highestSeen = highestSeen;
	}

	/** What the refused write was to. */
	public String getResource() {
		return this.resource;
	}

	/** The fencing token of the refused write. */
	public long getToken() {
		return this.token;
	}

	/**
	 * The highest token the store had accepted for the resource, greater than
	 * {@link #getToken()}.
	 */
	public long getHighestSeen() {
		return this.highestSeen;
	}

}
