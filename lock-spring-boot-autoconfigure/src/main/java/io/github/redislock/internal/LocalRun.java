package io.github.redislock.internal;

import java.util.concurrent.CompletableFuture;

import org.jspecify.annotations.Nullable;

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

	// the owner that took the lock in Redis, and the token it was granted with
	private final Grant grant;

	private long nextToken;

	private long lastToken;

	// passes so far, for a kind whose runs end after a number of them
	private int passes;

	// the watchdog writes it too
	private volatile long confirmedAtNanos;

	// the next block of tokens, asked for without waiting when the last one was taken;
	// the answer comes on a Redis I/O thread
	private volatile @Nullable Ahead ahead;

	/**
	 * @param redisOwner the owner that took the lock in Redis
	 * @param grant the acquisition's grant, with its reserved tokens
	 * @param confirmedAtNanos when the acquisition was sent, or earlier
	 */
	LocalRun(Owner redisOwner, LockReply.Granted grant, long confirmedAtNanos) {
		this.grant = new Grant(redisOwner, grant.fencingToken());
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
		return this.grant.owner();
	}

	/**
	 * The grant in Redis every local holder's commands speak for: the owner that took the
	 * lock there, and its token.
	 */
	Grant grant() {
		return this.grant;
	}

	/**
	 * The token of the acquisition in Redis, which a re-entry there answers with.
	 */
	long firstToken() {
		return this.grant.token();
	}

	/**
	 * Whether the next pass may go without asking Redis: a reserved token is left, and
	 * Redis confirmed the lock held (and its lease whole) less than half a lease ago, so
	 * that a pass never hands over a lock whose lease may have run out unseen.
	 */
	boolean canPassLocally(long leaseMillis) {
		return this.nextToken <= this.lastToken && confirmedLately(leaseMillis);
	}

	/**
	 * Whether Redis confirmed the lock held, and its lease whole, less than half a lease
	 * ago.
	 */
	boolean confirmedLately(long leaseMillis) {
		return System.nanoTime() - this.confirmedAtNanos < leaseMillis * 500_000L;
	}

	/**
	 * Counts one more pass, for a kind whose run ends after {@code maxLocalPasses} of
	 * them whoever waits ({@link LockKind.PassesOneOfMany}).
	 * @return whether the run may pass once more: fewer than {@code maxLocalPasses} so
	 * far
	 */
	boolean mayPassAgain(int maxLocalPasses) {
		return this.passes < maxLocalPasses;
	}

	/** Records a pass made with a token Redis gave for it (see {@link #mayPassAgain}). */
	void passedWith(long token) {
		this.passes++;
		this.nextToken = token + 1;
		this.lastToken = token;
	}

	/** Takes the next reserved token, for the owner the lock is passed to. */
	long takeToken() {
		return this.nextToken++;
	}

	/** Whether every reserved token is taken. */
	boolean spent() {
		return this.nextToken > this.lastToken;
	}

	/**
	 * Records the next block of tokens asked for without waiting as the last one was
	 * taken: Redis has most likely answered by the next pass, which then goes on at once
	 * instead of waiting a round trip with nobody holding the lock. The question leaves
	 * the lock to this client (it gives nothing up), so the pass that uses the answer is
	 * still at most {@code maxLocalPasses} after another client's waiter showed up.
	 */
	void askedAhead(CompletableFuture<LockReply> reply, long sentAtNanos) {
		this.ahead = new Ahead(reply, sentAtNanos);
	}

	/**
	 * Goes on with the block asked for ahead of time, when Redis granted it.
	 * @param mayWait whether to wait for an answer still on its way; if not, it is kept
	 * for a later pass
	 * @return the answer: {@link LockReply.Granted} when the run goes on with a new
	 * block; else (another client waits, the lock was lost) the pass asks Redis itself,
	 * and gives the lock up when another client waits; {@code null} when there is no
	 * answer
	 */
	@Nullable LockReply continueAhead(boolean mayWait) {
		Ahead asked = this.ahead;
		if (asked == null || (!mayWait && !asked.reply().isDone())) {
			return null;
		}
		this.ahead = null;
		LockReply reply;
		try {
			reply = asked.reply().join();
		}
		catch (RuntimeException ex) {
			// the outcome is unknown: whatever it reserved or renewed is harmless
			return null;
		}
		if (reply instanceof LockReply.Granted granted) {
			this.nextToken = granted.fencingToken();
			this.lastToken = granted.fencingToken() + granted.tokens() - 1;
			renewed(asked.sentAtNanos());
		}
		return reply;
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

	private record Ahead(CompletableFuture<LockReply> reply, long sentAtNanos) {
	}

}
