package io.github.redislock.internal;

/**
 * One stretch of time during which this client holds a lock in Redis, possibly passed
 * from owner to owner of the client without being freed there (lock cohorting). Redis
 * knows one owner for all of it, the one that took the lock; each local holder speaks to
 * Redis as that owner.
 * <p>
 * Fencing tokens stay strictly increasing, local passes included, and across clients: the
 * acquisition reserves a block of tokens from the slot's counter, each local holder takes
 * the next one, and when the block is used up the next pass reserves another
 * ({@code pass.lua}), which is also where the client learns whether another client waits,
 * and gives the lock up if so. Tokens therefore increase, but not by one.
 * <p>
 * Written only by the current holder, or by the owner passing the lock on; a pass hands
 * it over through the waiter's wake-up, which orders the writes.
 */
final class LocalRun {

	private final Owner redisOwner;

	private final long firstToken;

	private long nextToken;

	private long lastToken;

	// the watchdog writes it too
	private volatile long confirmedAtNanos;

	/**
	 * @param redisOwner the owner that took the lock in Redis
	 * @param grant the acquisition's grant, with its reserved tokens
	 * @param confirmedAtNanos when the acquisition was sent, or earlier
	 */
	LocalRun(Owner redisOwner, LockReply.Granted grant, long confirmedAtNanos) {
		this.redisOwner = redisOwner;
		this.firstToken = grant.fencingToken();
		this.nextToken = grant.fencingToken() + 1;
		this.lastToken = grant.fencingToken() + grant.tokens() - 1;
		this.confirmedAtNanos = confirmedAtNanos;
	}

	/**
	 * When Redis last confirmed the lock held with its lease whole (the sending of that
	 * command, or earlier).
	 */
	long confirmedAtNanos() {
		return this.confirmedAtNanos;
	}

	/** The owner Redis knows as the holder: every local holder's commands name it. */
	Owner redisOwner() {
		return this.redisOwner;
	}

	/**
	 * The token of the acquisition in Redis, which a re-entry there answers with.
	 */
	long firstToken() {
		return this.firstToken;
	}

	/**
	 * Whether the next pass may go without asking Redis: a reserved token is left, and
	 * Redis confirmed the lock held (and its lease whole) less than half a lease ago, so
	 * that a pass never hands over a lock whose lease may have run out unseen.
	 */
	boolean canPassLocally(long leaseMillis) {
		long sinceConfirmed = System.nanoTime() - this.confirmedAtNanos;
		return this.nextToken <= this.lastToken && sinceConfirmed < leaseMillis * 500_000L;
	}

	/** Takes the next reserved token, for the owner the lock is passed to. */
	long takeToken() {
		return this.nextToken++;
	}

	/**
	 * Records Redis' go-ahead: a new block of tokens (the first is taken at once) and a
	 * lease renewed at {@code confirmedAtNanos} or later.
	 * @return the first token of the block
	 */
	long continued(LockReply.Granted grant, long confirmedAtNanos) {
		this.nextToken = grant.fencingToken() + 1;
		this.lastToken = grant.fencingToken() + grant.tokens() - 1;
		this.confirmedAtNanos = confirmedAtNanos;
		return grant.fencingToken();
	}

	/** Records a renewal of the lease sent at the given time. */
	void renewed(long sentAtNanos) {
		if (sentAtNanos - this.confirmedAtNanos > 0) {
			this.confirmedAtNanos = sentAtNanos;
		}
	}

}
