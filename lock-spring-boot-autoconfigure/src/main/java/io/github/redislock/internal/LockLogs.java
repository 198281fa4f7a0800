package io.github.redislock.internal;

import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

/**
 * The logger categories a user may tune, each for one kind of news (docs/monitoring.md
 * lists them): what is logged at WARN or INFO goes to one of these, never to a logger
 * named after an internal class, which logs at DEBUG only.
 */
final class LockLogs {

	/** Redis lost, refusing a command, back: {@link RedisAvailability}. */
	static final String CONNECTION = RedisAvailability.CATEGORY;

	/** A lease lost, a holder abandoned, a hold declared lost by the client's clock. */
	static final String LEASE = "io.github.redislock.lease";

	/** Releases that failed, and those completed in the background afterwards. */
	static final String RELEASE = "io.github.redislock.release";

	/** Release messages: subscriptions Redis refused, the pub/sub mode chosen. */
	static final String PUBSUB = "io.github.redislock.pubsub";

	/**
	 * The user's own code called by the client (lease-lost listeners, observation
	 * handlers) failed.
	 */
	static final String LISTENERS = "io.github.redislock.listeners";

	static final Log lease = LogFactory.getLog(LEASE);

	static final Log release = LogFactory.getLog(RELEASE);

	static final Log pubsub = LogFactory.getLog(PUBSUB);

	static final Log listeners = LogFactory.getLog(LISTENERS);

	private LockLogs() {
	}

}
