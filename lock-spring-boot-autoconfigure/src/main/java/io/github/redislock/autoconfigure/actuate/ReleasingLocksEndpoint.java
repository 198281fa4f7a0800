package io.github.redislock.autoconfigure.actuate;

import io.github.redislock.RedisLock;
import io.github.redislock.RedisLockClient;
import org.apache.commons.logging.Log;
import org.apache.commons.logging.LogFactory;

import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.Selector.Match;

/**
 * The {@code locks} endpoint with one more operation:
 * {@code DELETE /actuator/locks/<name>} forces the named lock open, whoever holds it, on
 * any instance. Only created with {@code management.endpoint.locks.force-release=true}.
 * The holder is not stopped: it runs on, its watchdog or unlock reports the lost lease,
 * and meanwhile another holder may run. Meant for a lock whose holder is known to be
 * gone, when waiting out its lease is not an option.
 *
 * @since 0.1.0
 */
@Endpoint(id = "locks")
public class ReleasingLocksEndpoint extends LocksEndpoint {

	private static final Log logger = LogFactory.getLog(ReleasingLocksEndpoint.class);

	/**
	 * Creates the endpoint.
	 * @param client the client that releases the locks
	 */
	public ReleasingLocksEndpoint(RedisLockClient client) {
		super(client);
	}

	/**
	 * Deletes the lock and wakes its waiters.
	 * @param name the lock's name; a name with '/' takes several path segments
	 * @return whether the lock was held
	 */
	@DeleteOperation
	public ReleaseDescriptor release(@Selector(match = Match.ALL_REMAINING) String[] name) {
		RedisLock lock = client().getLock(String.join("/", name));
		boolean released = lock.forceUnlock();
		logger.warn("Lock '" + lock.getName() + "' was force-released through the locks endpoint"
				+ (released ? "" : " (it was not held)"));
		return new ReleaseDescriptor(lock.getName(), released);
	}

	/**
	 * The answer to a forced release.
	 *
	 * @param name the lock's name
	 * @param released whether it was held (and is now released)
	 */
	public record ReleaseDescriptor(String name, boolean released) {
	}

}
