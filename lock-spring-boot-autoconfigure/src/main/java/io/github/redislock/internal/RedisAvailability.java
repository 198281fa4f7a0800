package io.github.redislock.internal;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * Tells the user, once per incident, what goes wrong between this client and Redis: one
 * WARN when Redis cannot be reached (no connection, no answer in time), a reminder at
 * most every {@value #REMINDER_SECONDS} s while it lasts, and one INFO when Redis answers
 * again, with how long it took and how many calls failed meanwhile; one WARN per kind of
 * refusal (an ACL without a command a script calls, say) per {@value #REMINDER_SECONDS}
 * s. Every caller gets its own exception; what each call's failure says is logged at
 * DEBUG by whoever handles it, so an outage with many callers writes a handful of lines,
 * not one a call.
 * <p>
 * Logged on {@value #CATEGORY}, a category users may tune (docs/monitoring.md).
 */
final class RedisAvailability {

	/** The logger category: where Redis is lost and found, for users to tune. */
	static final String CATEGORY = "io.github.redislock.connection";

	static final long REMINDER_SECONDS = 60;

	static final long CONFIRM_MILLIS = 1000;

	private static final long CONFIRM_NANOS = TimeUnit.MILLISECONDS.toNanos(CONFIRM_MILLIS);

	private static final Log logger = LogFactory.getLog(CATEGORY);

	private static final long REMINDER_NANOS = TimeUnit.SECONDS.toNanos(REMINDER_SECONDS);

	// where Redis is, for messages: "127.0.0.1:6379"
	private final String where;

	// System.nanoTime() when Redis was lost, 0 while it answers; the rest guarded by this
	private volatile long lostSince;

	private long failed;

	// when the loss was last told
	private long lastTold;

	// when Redis was last told back, 0 before: a call sent before then whose failure
	// comes
	// after it (its timeout ran out just as Redis came back) belongs to that incident
	private long backAt;

	// set once, as the client closes: failures after it are the close's, not Redis'
	private volatile boolean clientClosed;

	// when each kind of refusal was last told
	private final ConcurrentHashMap<String, Long> refusalsTold = new ConcurrentHashMap<>();

	RedisAvailability(String where) {
		this.where = where;
	}

	/**
	 * The client is closing: calls still on their way fail as their connection closes
	 * (Lettuce: "Connection closed"), which is no outage; told at DEBUG from now on.
	 */
	void clientClosed() {
		this.clientClosed = true;
	}

	/**
	 * A call failed because Redis could not be reached or did not answer in time: told at
	 * once, the first time.
	 * @param why what happened, for the message
	 * @param sentAt when the call was sent ({@link System#nanoTime()}), or later: a call
	 * sent before Redis was told back, failing after it, opens no new incident
	 */
	synchronized void unreachable(String why, long sentAt) {
		if (this.clientClosed) {
			if (logger.isDebugEnabled()) {
				logger.debug("A call to Redis at " + this.where + " ended as the lock client closed: " + why);
			}
			return;
		}
		long now = nonZero(System.nanoTime());
		if (this.lostSince == 0 && this.backAt != 0 && sentAt - this.backAt < 0) {
			if (logger.isDebugEnabled()) {
				logger.debug("Redis at " + this.where + " did not answer a call sent before it answered again: " + why);
			}
			return;
		}
		if (this.lostSince == 0) {
			this.lostSince = now;
			this.failed = 1;
			this.lastTold = now;
			logger.warn("Redis at " + this.where + " cannot be reached: " + why + ". Lock calls fail with "
					+ "RedisLockException (HTTP 503) until it answers again; holds whose release failed are released "
					+ "in the background then. Told once: set logger '" + CATEGORY + "' to DEBUG to see every "
					+ "failed call.");
			return;
		}
		this.failed++;
		if (now - this.lastTold >= REMINDER_NANOS) {
			this.lastTold = now;
			logger.warn("Redis at " + this.where + " still cannot be reached, for "
					+ Durations.formatMillis(TimeUnit.NANOSECONDS.toMillis(now - this.lostSince)) + " now; "
					+ this.failed + " lock calls failed meanwhile. Last: " + why);
		}
		else if (logger.isDebugEnabled()) {
			logger.debug("Redis at " + this.where + " cannot be reached: " + why);
		}
	}

	/**
	 * Redis answered a call (an error reply too: it is reachable). Within
	 * {@value #CONFIRM_MILLIS} ms of the first failure an answer ends nothing: a server
	 * stopping answers some calls and not others for a moment, and telling "back" and
	 * "lost" again each time would flood the log the way this class exists to avoid.
	 * @param sentAt when the call was sent ({@link System#nanoTime()}), or earlier: a
	 * reply to a call sent before Redis was lost says nothing of now
	 */
	void answered(long sentAt) {
		// the common case, Redis answering all along, reads one volatile field
		long since = this.lostSince;
		if (since != 0 && sentAt - since > 0 && System.nanoTime() - since >= CONFIRM_NANOS) {
			back(since);
		}
	}

	private synchronized void back(long since) {
		if (this.lostSince != since) {
			return;
		}
		this.lostSince = 0;
		this.backAt = nonZero(System.nanoTime());
		long lostFor = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since);
		logger.info("Redis at " + this.where + " answers again, after " + Durations.formatMillis(lostFor) + "; "
				+ this.failed + " lock calls failed meanwhile");
	}

	/**
	 * Redis refused a call for good (an error reply that is not a "not now").
	 * @param kind what the refusal is, without what differs per call (the lock name): the
	 * reminders are counted per kind
	 * @param message what to tell
	 */
	void refused(String kind, String message) {
		answered(System.nanoTime());
		long now = System.nanoTime();
		Long told = this.refusalsTold.get(kind);
		if (told == null ? this.refusalsTold.putIfAbsent(kind, now) == null
				: (now - told >= REMINDER_NANOS && this.refusalsTold.replace(kind, told, now))) {
			logger.warn(message + " (told once a minute at most; set logger '" + CATEGORY
					+ "' to DEBUG to see every refused call)");
		}
		else if (logger.isDebugEnabled()) {
			logger.debug(message);
		}
	}

	private static long nonZero(long nanos) {
		return (nanos != 0) ? nanos : 1;
	}

}
